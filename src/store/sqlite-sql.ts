/** The SQL port over one better-sqlite3 connection (the SqliteStore's). */
import type Database from 'better-sqlite3';
import type { BatchTx, Sql } from './sql.js';

export class SqliteSql implements Sql {
  readonly dialect = 'sqlite' as const;
  private readonly cache = new Map<string, Database.Statement>();
  /** Transactions of this process, one after another (SQLite has one per connection). */
  private txChain: Promise<unknown> = Promise.resolve();
  /** Inside a transaction the port itself: BEGIN is not nested. */
  private readonly inTx: Sql = {
    dialect: 'sqlite',
    all: (s, p) => this.all(s, p),
    run: (s, p) => this.run(s, p),
    tx: (fn) => fn(this.inTx),
  };
  /**
   * Synchronous, for batch extensions inside the store's own (synchronous) transaction. Their values
   * are spread into arguments: better-sqlite3 reads an array argument element by element through
   * V8's API, which made binding about 30 % dearer at every size measured (4 to 896 values; a
   * statement of SQLite's most, 32,766, binds spread as well).
   */
  readonly batchTx: BatchTx = {
    run: (sql, params = []) => {
      const s = this.stmt(sql);
      if (s.reader) s.all(...params);
      else s.run(...params);
    },
  };

  constructor(private readonly db: Database.Database) {}

  private stmt(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) this.cache.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  private changes(sql: string, params: readonly unknown[]): number {
    const s = this.stmt(sql);
    return s.reader ? (s.all(...params), 0) : s.run(...params).changes;
  }

  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.stmt(sql).all(...params) as T[];
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return this.changes(sql, params);
  }

  tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    const run = this.txChain.then(async () => {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const v = await fn(this.inTx);
        this.db.exec('COMMIT');
        return v;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    });
    this.txChain = run.catch(() => undefined);
    return run;
  }
}
