/**
 * The replicated store: PostgreSQL over a pg Pool. Several toolwatch replicas write to one
 * database, so
 * - writes are grouped as SQLite's are (src/store/group-commit.ts), each table upserted in one
 *   statement over unnest() arrays (src/store/pg-write.ts), rows merged by key and sorted so that two
 *   replicas upserting the same minute take their row locks in the same order (no deadlocks);
 * - migrations run under a transaction-scoped advisory lock, so replicas starting together apply
 *   each migration once;
 * - runExclusive() holds a session advisory lock on a checked-out connection, so the hourly judge
 *   and the alert evaluator run on one replica at a time.
 */
import pg from 'pg';
import { GroupCommit } from './group-commit.js';
import { guardPoolClients } from './pg-client-errors.js';
import { withResolvedCommit, xactCommitted } from './pg-in-doubt.js';
import { withTransaction } from './pg-transaction.js';
import { migrations } from './migrations/index.js';
import { selectCallSeries } from './call-series.js';
import { selectExecutionCounts } from './execution-counts.js';
import { PgSql } from './pg-sql.js';
import { fromFailureRow } from './rows.js';
import { runStatements } from './pg-statements.js';
import { compareKeys, groupStatements } from './pg-write.js';
import { servicesMatch, type Sql } from './sql.js';
import type {
  CallCountQuery,
  CallCountRow,
  CallSeriesQuery,
  CallSeriesRow,
  ExecutionCountRow,
  FailureQuery,
  PendingKey,
  PendingRow,
  Store,
  StoredFailure,
  WriteBatch,
} from './store.js';

export interface PostgresOptions {
  /** Pool size; runExclusive holds one connection for as long as its job runs. */
  maxConnections?: number;
  /**
   * Pool connections can die (server restart, network), idle or checked out; the pool drops them,
   * the statement running on one fails, we only log.
   */
  onClientError?: (err: Error) => void;
}

/** Advisory lock namespaces (the two-int4 key space), so our keys do not collide with other users of the database. */
const LOCK_NS_MIGRATE = 'toolwatch:migrate';
const LOCK_NS_JOB = 'toolwatch:job';

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  private closed = false;
  private readonly writes = new GroupCommit({
    commit: (batches) => this.writeGroup(batches),
    mayBeOneBatchsFault,
  });
  private readonly held = new Set<string>();
  readonly sql: Sql;

  private constructor(readonly pool: pg.Pool) {
    this.sql = new PgSql(pool, () => pool.connect());
  }

  /** Connects, runs pending migrations (one replica at a time) and returns the store. */
  static async open(url: string, opts: PostgresOptions = {}): Promise<PostgresStore> {
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.maxConnections ?? 10,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      application_name: 'toolwatch',
    });
    // Without a listener a client's error would crash the process.
    guardPoolClients(pool, (err) => opts.onClientError?.(err));
    try {
      await migratePostgres(pool);
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
    return new PostgresStore(pool);
  }

  write(batch: WriteBatch): Promise<void> {
    return this.writes.write(batch);
  }

  pendingWrites(): number {
    return this.writes.pendingWrites();
  }

  private async transaction<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return withTransaction(await this.connect(), fn);
  }

  /**
   * Batches in one transaction, in two round trips: BEGIN with every statement, then COMMIT; a
   * COMMIT whose answer was lost is settled by the server (pg-in-doubt.ts).
   */
  private async writeGroup(batches: WriteBatch[]): Promise<void> {
    await withResolvedCommit(
      await this.connect(),
      async (begin) => void (await begin(groupStatements(batches))),
      (doubt) => xactCommitted(this.pool, doubt),
    );
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (err) {
      if (err !== null && typeof err === 'object') connectErrors.add(err);
      throw err;
    }
  }

  async loadPending(): Promise<PendingRow[]> {
    type Row = { trace_id: string; call_key: string; due_ms: string; payload: string; owner: string | null };
    const res = await this.pool.query<Row>(
      `SELECT trace_id, call_key, due_ms, payload, owner FROM pending_calls
       ORDER BY due_ms, trace_id COLLATE "C", call_key COLLATE "C"`,
    );
    return res.rows.map((r) => ({
      traceId: r.trace_id,
      callKey: r.call_key,
      dueMs: Number(r.due_ms),
      payload: r.payload,
      owner: r.owner,
    }));
  }

  /** Its own transaction beside the group commit; a COMMIT whose answer was lost is settled by the server. */
  async settlePending(
    owner: string,
    keys: readonly PendingKey[],
    build: (held: readonly PendingKey[]) => WriteBatch,
  ): Promise<PendingKey[]> {
    if (this.closed) throw new Error('store is closed');
    const sorted = [...keys].sort((a, b) => compareKeys([a.traceId, a.callKey], [b.traceId, b.callKey]));
    let held: PendingKey[] = [];
    await withResolvedCommit(
      await this.connect(),
      async (begin, c) => {
        const [res] = await begin([
          [
            `DELETE FROM pending_calls p USING unnest(?::text[], ?::text[]) AS r(trace_id, call_key)
             WHERE p.trace_id = r.trace_id AND p.call_key = r.call_key AND p.owner = ?
             RETURNING p.trace_id, p.call_key`,
            [sorted.map((k) => k.traceId), sorted.map((k) => k.callKey), owner],
          ],
        ]);
        const rows = res!.rows as { trace_id: string; call_key: string }[];
        const gone = new Set(rows.map((r) => JSON.stringify([r.trace_id, r.call_key])));
        held = keys.filter((k) => gone.has(JSON.stringify([k.traceId, k.callKey])));
        if (held.length > 0) await runStatements(c, groupStatements([build(held)]));
      },
      (doubt) => xactCommitted(this.pool, doubt),
    );
    return held;
  }

  async failures(q: FailureQuery): Promise<StoredFailure[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    const p = (v: unknown): string => (args.push(v), `$${args.length}`);
    if (q.service) where.push(`service = ${p(q.service)}`);
    if (q.services) where.push(servicesMatch('postgres', 'service', q.services, p));
    if (q.tool) {
      const t = p(q.tool);
      where.push(`(tool = ${t} OR name = ${t})`);
    }
    if (q.outcome) where.push(`outcome = ${p(q.outcome)}`);
    if (q.sinceMs !== undefined) where.push(`time_ms >= ${p(q.sinceMs)}`);
    if (q.cursor !== undefined) where.push(`id < ${p(q.cursor)}`);
    const sql = `SELECT * FROM failures ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT ${p(q.limit)}`;
    const res = await this.pool.query(sql, args);
    // BIGINT (id, time_ms) arrives as a string; fromFailureRow converts.
    return res.rows.map(fromFailureRow);
  }

  async callCounts(q: CallCountQuery): Promise<CallCountRow[]> {
    const args: unknown[] = [q.sinceMs, q.untilMs ?? Number.MAX_SAFE_INTEGER];
    let sql =
      'SELECT service, model, tool, outcome, SUM(count) AS count FROM call_minutes WHERE minute >= $1 AND minute < $2';
    if (q.service) args.push(q.service), (sql += ` AND service = $${args.length}`);
    if (q.services)
      sql += ` AND ${servicesMatch('postgres', 'service', q.services, (v) => (args.push(v), `$${args.length}`))}`;
    // COLLATE "C": byte order, as SQLite sorts, whatever locale the cluster was created with.
    sql +=
      ' GROUP BY service, model, tool, outcome ORDER BY service COLLATE "C", tool COLLATE "C", model COLLATE "C", outcome COLLATE "C"';
    const res = await this.pool.query<{ service: string; model: string; tool: string; outcome: string; count: string }>(
      sql,
      args,
    );
    return res.rows.map((r) => ({
      service: r.service,
      model: r.model,
      tool: r.tool,
      outcome: r.outcome as CallCountRow['outcome'],
      count: Number(r.count), // SUM(bigint) is numeric: a string from pg
    }));
  }

  callSeries(q: CallSeriesQuery): Promise<CallSeriesRow[]> {
    return selectCallSeries(this.sql, q);
  }

  executionCounts(q: CallCountQuery): Promise<ExecutionCountRow[]> {
    return selectExecutionCounts(this.sql, q);
  }

  async prune(beforeMs: number): Promise<number> {
    return this.transaction(async (c) => {
      let removed = 0;
      removed += (await c.query('DELETE FROM call_minutes WHERE minute < $1', [beforeMs])).rowCount ?? 0;
      removed += (await c.query('DELETE FROM execution_minutes WHERE minute < $1', [beforeMs])).rowCount ?? 0;
      removed += (await c.query('DELETE FROM failures WHERE time_ms < $1', [beforeMs])).rowCount ?? 0;
      removed += (await c.query('DELETE FROM failure_drops WHERE minute < $1', [beforeMs])).rowCount ?? 0;
      // Commit marks settle a lost COMMIT within seconds (pg-in-doubt.ts); an hour is ample. The
      // server's clock, as it stamped them: replicas' clocks may differ.
      await c.query("DELETE FROM commit_marks WHERE at < now() - interval '1 hour'");
      return removed;
    });
  }

  /**
   * A session advisory lock on a connection checked out for the whole job: another replica (or
   * another call here) trying the same name gets {ran:false}. If the connection dies, the server
   * releases the lock with it.
   */
  async runExclusive<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    if (this.held.has(name)) return { ran: false }; // same process: no need to spend a connection to learn it
    this.held.add(name);
    try {
      const client = await this.pool.connect();
      let broken: Error | undefined;
      try {
        const got = await client.query<{ locked: boolean }>(
          'SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS locked',
          [LOCK_NS_JOB, name],
        );
        if (!got.rows[0]?.locked) return { ran: false };
        try {
          return { ran: true, value: await fn() };
        } finally {
          try {
            await client.query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', [LOCK_NS_JOB, name]);
          } catch (err) {
            // Never pool a connection that may still hold the lock: destroying it releases the lock.
            broken = err as Error;
          }
        }
      } finally {
        client.release(broken);
      }
    } finally {
      this.held.delete(name);
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  /** A transaction with a transaction id commits a WAL record: fails when the server cannot write. */
  async probeWrite(): Promise<void> {
    await this.transaction((c) => c.query('SELECT pg_current_xact_id()'));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes.close();
    await this.pool.end();
  }
}

/**
 * An error the server raised about the statement (bad data, a constraint, a deadlock) may come
 * from one batch of the group; a connection failure or a server shutting down or out of resources
 * (SQLSTATE classes 08, 53, 57) is everyone's.
 */
const connectErrors = new WeakSet<object>();

function mayBeOneBatchsFault(err: unknown): boolean {
  // Could not even get a connection (refused, no such database, not accepting connections…).
  if (!(err instanceof pg.DatabaseError) || connectErrors.has(err)) return false;
  const cls = (err.code ?? '').slice(0, 2);
  return cls !== '08' && cls !== '53' && cls !== '57';
}

/** Applies pending migrations in one transaction, holding a transaction-scoped advisory lock. */
export async function migratePostgres(pool: pg.Pool): Promise<void> {
  await withTransaction(await pool.connect(), async (client) => {
    // Taken before anything else: concurrent CREATE TABLE IF NOT EXISTS can still collide.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1), 0)', [LOCK_NS_MIGRATE]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
    );
    // Read after the lock: under READ COMMITTED this sees what a replica that went first committed.
    const res = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(res.rows.map((r) => Number(r.version)));
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      await client.query(m.postgres);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        m.version,
        m.name,
        Date.now(),
      ]);
    }
  });
}
