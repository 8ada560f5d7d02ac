/**
 * A tiny SQL port so the judge store is written once for both databases: SQL uses `?`
 * placeholders (rewritten to $n for PostgreSQL) and only syntax both accept (ON CONFLICT …,
 * RETURNING, CAST). PostgreSQL returns BIGINT and COUNT as strings: callers wrap them in Number().
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { withTransaction } from '../store/pg-transaction.js';

export interface Sql {
  readonly kind: 'sqlite' | 'postgres';
  all<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Returns the number of rows changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * One transaction. On SQLite the body must only await this port (whose promises resolve at once),
   * so it finishes before the store's group commit — a macrotask — can start its own transaction.
   */
  tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
}

/** `?` → `$1, $2 …` (our SQL never has a `?` inside a string literal). */
export function toPg(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export class SqliteSql implements Sql {
  readonly kind = 'sqlite' as const;
  private readonly cache = new Map<string, Database.Statement>();
  constructor(private readonly db: Database.Database) {}

  private stmt(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) this.cache.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  /** Synchronous forms, for the batch extension that runs inside the store's own transaction. */
  allSync<T>(sql: string, params: readonly unknown[] = []): T[] {
    return this.stmt(sql).all(...params) as T[];
  }
  runSync(sql: string, params: readonly unknown[] = []): number {
    const s = this.stmt(sql);
    return s.reader ? (s.all(...params), 0) : s.run(...params).changes;
  }

  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.allSync<T>(sql, params);
  }
  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return this.runSync(sql, params);
  }
  async tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const v = await fn(this);
      this.db.exec('COMMIT');
      return v;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw err;
    }
  }
}

/** Runs on a pool, or on one client inside a transaction. */
export class PgSql implements Sql {
  readonly kind = 'postgres' as const;
  constructor(private readonly q: pg.Pool | pg.PoolClient) {}

  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return (await this.q.query(toPg(sql), params as unknown[])).rows as T[];
  }
  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return (await this.q.query(toPg(sql), params as unknown[])).rowCount ?? 0;
  }
  async tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    if (!('totalCount' in this.q)) return fn(this); // already a transaction's client
    return withTransaction(await this.q.connect(), (client) => fn(new PgSql(client)));
  }
}
