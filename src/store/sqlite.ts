/**
 * The embedded store: better-sqlite3 in WAL mode. Writes from concurrent requests are grouped
 * into one transaction (src/store/group-commit.ts, as PostgreSQL's), so the disk sees one commit for
 * many batches; a batch's promise resolves only after its transaction committed.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { GroupCommit } from './group-commit.js';
import { migrations } from './migrations/index.js';
import { sqliteOpenProblem } from './open-error.js';
import { isUnstorable } from './unstorable.js';
import { groupCounts } from './group-counts.js';
import { runExtensions, writeMergedRows } from './group-extensions.js';
import { fromFailureRow } from './rows.js';
import { servicesMatch, type Row, type Sql } from './sql.js';
import { SqliteSql } from './sqlite-sql.js';
import { SqliteCounts } from './sqlite-counts.js';
import { WalCheckpointer } from './sqlite-checkpointer.js';
import { selectCallSeries } from './call-series.js';
import { selectExecutionCounts } from './execution-counts.js';
import type {
  CallCountQuery,
  CallCountRow,
  CallSeriesQuery,
  CallSeriesRow,
  ExecutionCountRow,
  FailureQuery,
  FailureRecord,
  LedgerRecord,
  PendingKey,
  PendingRow,
  Store,
  StoredFailure,
  WriteBatch,
} from './store.js';

export interface SqliteOptions {
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  /** How long a statement waits for another process's lock before it fails (SQLITE_BUSY). */
  busyTimeoutMs?: number;
  /**
   * Who copies the WAL back into the file (store.sqlite_checkpoint): a worker thread (`background`,
   * sqlite-checkpointer.ts; files only) or the committing connection, as SQLite does (`inline`, the
   * default).
   */
  checkpoint?: 'background' | 'inline';
  /** The background checkpointer failed and the main connection checkpoints again: why. */
  onCheckpointProblem?: (message: string) => void;
  /** Each background checkpoint that copied pages (tests). */
  onCheckpoint?: (copied: number, walPages: number) => void;
}

const DEFAULT_BUSY_TIMEOUT_MS = 100;

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly db: Database.Database;
  private readonly port: SqliteSql;
  private closed = false;
  private readonly writes: GroupCommit;
  private readonly stmts: ReturnType<SqliteStore['prepare']>;
  /** The count rows (call and execution minutes, failure drops), failure records and journal rows, as multi-row statements. */
  private readonly counts: SqliteCounts;
  /** The group's transaction: better-sqlite3's wrapper, made once rather than per group. */
  private readonly commitGroup: (batches: WriteBatch[]) => void;
  /** Until when (performance.now()) group writes fail at once: another process held the lock. */
  private lockedUntil = 0;
  private readonly lockBackoffMs: number;
  private readonly checkpointer: WalCheckpointer | undefined;

  constructor(opts: SqliteOptions) {
    try {
      this.db = SqliteStore.openFile(opts);
    } catch (err) {
      throw sqliteOpenProblem(opts.path, err) ?? err;
    }
    this.port = new SqliteSql(this.db);
    this.stmts = this.prepare();
    this.counts = new SqliteCounts(this.db);
    this.commitGroup = this.db.transaction((batches: WriteBatch[]) => this.writeGroup(batches));
    // Of every half second at least ~four fifths stay free for other work while a lock is held.
    this.lockBackoffMs = Math.max(250, 5 * (opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS));
    this.writes = new GroupCommit({
      commit: (batches) => this.commit(batches),
      // A failure of the store itself (a lock, a full disk) would fail — and wait — again for every
      // batch: all of them get it. Only a batch whose data was refused is looked for one by one.
      mayBeOneBatchsFault: isUnstorable,
      // Another process holds the lock: fail at once (503 + Retry-After) instead of waiting on the
      // event loop again for a lock that was held a moment ago.
      refusal: () =>
        performance.now() < this.lockedUntil
          ? Object.assign(new Error('the database is locked by another process'), { code: 'SQLITE_BUSY' })
          : undefined,
    });
    if (opts.checkpoint === 'background' && opts.path !== ':memory:') {
      const db = this.db;
      this.checkpointer = new WalCheckpointer({
        path: opts.path,
        synchronous: opts.synchronous,
        setAutocheckpoint: (pages) => db.pragma(`wal_autocheckpoint = ${pages}`),
        onProblem: opts.onCheckpointProblem ?? (() => {}),
        ...(opts.onCheckpoint ? { onCheckpoint: opts.onCheckpoint } : {}),
      });
    }
  }

  /** Opens, configures and migrates the file: every write a read-only file refuses happens here, at start. */
  private static openFile(opts: SqliteOptions): Database.Database {
    if (opts.path !== ':memory:') mkdirSync(path.dirname(opts.path), { recursive: true });
    const db = new Database(opts.path);
    try {
      SqliteStore.configure(db, opts);
      migrateSqlite(db);
      // A read-only file opens and migrates (nothing to do) without a word: a real write says so now,
      // at start, rather than at the first batch.
      if (opts.path !== ':memory:') rewriteHeader(db);
      return db;
    } catch (err) {
      db.close();
      throw err;
    }
  }

  private static configure(db: Database.Database, opts: SqliteOptions): void {
    db.pragma('journal_mode = WAL');
    // NORMAL in WAL survives a crash of the process; FULL also survives a power cut, at an fsync per commit.
    db.pragma(`synchronous = ${opts.synchronous}`);
    // The driver is synchronous, on the event loop: a lock held by another process (a backup, a
    // sqlite3 shell) is waited for here with nothing else answering — so only briefly, then the
    // write fails and its batches get 503 + Retry-After (store.sqlite_busy_timeout).
    db.pragma(`busy_timeout = ${Math.max(0, Math.round(opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS))}`);
    // 4 MiB of page cache (better-sqlite3 builds SQLite with 16 MiB): most of what is written here — the
    // dedupe journal above all, failure records, trajectories — is seldom read back, so a bigger cache
    // would only hold written pages; reads of older pages come from the operating system's file cache.
    db.pragma('cache_size = -4000');
  }

  private prepare() {
    return {
      pendingAdd: this.db.prepare(
        'INSERT OR REPLACE INTO pending_calls (trace_id, call_key, due_ms, payload, owner) VALUES (?, ?, ?, ?, ?)',
      ),
      pendingRemove: this.db.prepare('DELETE FROM pending_calls WHERE trace_id = ? AND call_key = ?'),
      pendingSettle: this.db.prepare('DELETE FROM pending_calls WHERE trace_id = ? AND call_key = ? AND owner = ?'),
    };
  }

  get sql(): Sql {
    return this.port;
  }

  write(batch: WriteBatch): Promise<void> {
    return this.writes.write(batch);
  }

  pendingWrites(): number {
    return this.writes.pendingWrites();
  }

  /** One transaction for the group; a lock another process held past busy_timeout starts the back-off. */
  private commit(batches: WriteBatch[]): void {
    try {
      this.commitGroup(batches);
    } catch (err) {
      if (isBusy(err)) this.lockedUntil = performance.now() + this.lockBackoffMs;
      throw err;
    }
  }

  /** The group's rows, in the transaction better-sqlite3 wraps them in (built once, in the constructor). */
  private writeGroup(batches: WriteBatch[]): void {
    if (batches.length === 1) {
      this.apply(batches[0]!);
      return;
    }
    // The group's count rows and the extensions' mergeable rows summed first (group-counts.ts,
    // group-extensions.ts), its failure records and journal rows in batch order, a statement per
    // table, then each batch's other rows in order.
    this.counts.write(groupCounts(batches));
    const failures: FailureRecord[] = [];
    const ledger: LedgerRecord[] = [];
    for (const b of batches) {
      for (const f of b.failures) failures.push(f);
      if (b.ledger) ledger.push(b.ledger);
    }
    this.counts.failures(failures);
    this.counts.ledger(ledger);
    writeMergedRows(this.port.batchTx, batches);
    for (const b of batches) {
      this.pending(b);
      runExtensions(this.port.batchTx, b.extensions, true);
    }
  }

  /** One batch alone: its count rows, records and extensions whole. */
  private apply(b: WriteBatch): void {
    this.counts.write(b);
    this.counts.failures(b.failures);
    if (b.ledger) this.counts.ledger([b.ledger]);
    this.pending(b);
    runExtensions(this.port.batchTx, b.extensions, false);
  }

  /** In order: a call deferred again in a later batch of the group replaces its row, a removal deletes it. */
  private pending(b: WriteBatch): void {
    for (const p of b.pendingAdd) this.stmts.pendingAdd.run(p.traceId, p.callKey, p.dueMs, p.payload, p.owner ?? null);
    for (const p of b.pendingRemove) this.stmts.pendingRemove.run(p.traceId, p.callKey);
  }

  async loadPending(): Promise<PendingRow[]> {
    const select = 'SELECT trace_id, call_key, due_ms, payload, owner FROM pending_calls ORDER BY due_ms';
    const rows = this.db.prepare(select).all() as {
      trace_id: string;
      call_key: string;
      due_ms: number;
      payload: string;
      owner: string | null;
    }[];
    return rows.map((r) => ({
      traceId: r.trace_id,
      callKey: r.call_key,
      dueMs: Number(r.due_ms),
      payload: r.payload,
      owner: r.owner,
    }));
  }

  /** In a macrotask, as the group commit: never inside a transaction of the SQL port still awaiting its body. */
  settlePending(
    owner: string,
    keys: readonly PendingKey[],
    build: (held: readonly PendingKey[]) => WriteBatch,
  ): Promise<PendingKey[]> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    return new Promise((resolve, reject) => {
      setImmediate(() => {
        try {
          resolve(
            this.db.transaction(() => {
              const held = keys.filter((k) => this.stmts.pendingSettle.run(k.traceId, k.callKey, owner).changes > 0);
              if (held.length > 0) this.apply(build(held));
              return held;
            })(),
          );
        } catch (err) {
          reject(err as Error);
        }
      });
    });
  }

  async failures(q: FailureQuery): Promise<StoredFailure[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.service) where.push('service = ?'), args.push(q.service);
    if (q.services) where.push(servicesMatch('sqlite', 'service', q.services, (v) => (args.push(v), '?')));
    if (q.tool) where.push('(tool = ? OR name = ?)'), args.push(q.tool, q.tool);
    if (q.outcome) where.push('outcome = ?'), args.push(q.outcome);
    if (q.sinceMs !== undefined) where.push('time_ms >= ?'), args.push(q.sinceMs);
    if (q.cursor !== undefined) where.push('id < ?'), args.push(q.cursor);
    const sql = `SELECT * FROM failures ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT ?`;
    const rows = this.db.prepare(sql).all(...args, q.limit) as Row[];
    return rows.map(fromFailureRow);
  }

  async callCounts(q: CallCountQuery): Promise<CallCountRow[]> {
    const args: unknown[] = [q.sinceMs, q.untilMs ?? Number.MAX_SAFE_INTEGER];
    let sql = `SELECT service, model, tool, outcome, SUM(count) AS count FROM call_minutes WHERE minute >= ? AND minute < ?`;
    if (q.service) (sql += ' AND service = ?'), args.push(q.service);
    if (q.services) sql += ` AND ${servicesMatch('sqlite', 'service', q.services, (v) => (args.push(v), '?'))}`;
    sql += ' GROUP BY service, model, tool, outcome ORDER BY service, tool, model, outcome';
    return this.db.prepare(sql).all(...args) as CallCountRow[];
  }

  callSeries(q: CallSeriesQuery): Promise<CallSeriesRow[]> {
    return selectCallSeries(this.sql, q);
  }

  executionCounts(q: CallCountQuery): Promise<ExecutionCountRow[]> {
    return selectExecutionCounts(this.sql, q);
  }

  async prune(beforeMs: number): Promise<number> {
    let removed = 0;
    this.db.transaction(() => {
      removed += this.db.prepare('DELETE FROM call_minutes WHERE minute < ?').run(beforeMs).changes;
      removed += this.db.prepare('DELETE FROM execution_minutes WHERE minute < ?').run(beforeMs).changes;
      removed += this.db.prepare('DELETE FROM failures WHERE time_ms < ?').run(beforeMs).changes;
      removed += this.db.prepare('DELETE FROM failure_drops WHERE minute < ?').run(beforeMs).changes;
    })();
    return removed;
  }

  private readonly held = new Set<string>();

  /** One SQLite file serves one process, so an in-process lock is the whole story here. */
  async runExclusive<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    if (this.held.has(name)) return { ran: false };
    this.held.add(name);
    try {
      return { ran: true, value: await fn() };
    } finally {
      this.held.delete(name);
    }
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  /** Rewrites the header's user_version with its own value: a committed write of one page. */
  async probeWrite(): Promise<void> {
    rewriteHeader(this.db);
    // The lock is gone: batches need not wait out the rest of the back-off.
    this.lockedUntil = 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes.close();
    // Its connection first: the last one to close checkpoints what is left and removes the WAL.
    await this.checkpointer?.stop();
    this.db.close();
  }
}

export function migrateSqlite(db: Database.Database): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
  );
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sqlite);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        Date.now(),
      );
    })();
  }
}

/** SQLITE_BUSY (and its extended codes): another connection holds a lock this one waited out busy_timeout for. */
function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** A real write that changes nothing: the header's user_version set to what it is. */
function rewriteHeader(db: Database.Database): void {
  const v = Number(db.pragma('user_version', { simple: true }));
  db.pragma(`user_version = ${Number.isInteger(v) ? v : 0}`);
}
