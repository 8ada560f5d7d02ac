/** The SQL port over a pg Pool, or over one client inside a transaction. */
import type pg from 'pg';
import { withTransaction } from './pg-transaction.js';
import { toPg, type Sql } from './sql.js';

export class PgSql implements Sql {
  readonly dialect = 'postgres' as const;

  constructor(
    private readonly q: pg.Pool | pg.PoolClient,
    private readonly connect?: () => Promise<pg.PoolClient>,
  ) {}

  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return (await this.q.query(toPg(sql), params as unknown[])).rows as T[];
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return (await this.q.query(toPg(sql), params as unknown[])).rowCount ?? 0;
  }

  async tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    if (!this.connect) return fn(this); // already a transaction's client
    return withTransaction(await this.connect(), (client) => fn(new PgSql(client)));
  }
}
