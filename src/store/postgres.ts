/**
 * The replicated store: PostgreSQL over a pg Pool. Several toolwatch replicas write to one
 * database, so
 * - writes are grouped like SQLite's (every batch queued while the previous group was committing
 *   goes into the next transaction; one group in flight at a time per process), each table upserted
 *   in one statement over unnest() arrays, rows merged by key and sorted so that two replicas
 *   upserting the same minute take their row locks in the same order (no deadlocks);
 * - migrations run under a transaction-scoped advisory lock, so replicas starting together apply
 *   each migration once;
 * - runExclusive() holds a session advisory lock on a checked-out connection, so the hourly judge
 *   and the alert evaluator run on one replica at a time.
 */
import pg from 'pg';
import { guardPoolClients } from './pg-client-errors.js';
import { withResolvedCommit, xactCommitted } from './pg-in-doubt.js';
import { withTransaction } from './pg-transaction.js';
import { migrations } from './migrations/index.js';
import { selectCallSeries } from './call-series.js';
import { selectExecutionCounts } from './execution-counts.js';
import { PgSql } from './pg-sql.js';
import { fromFailureRow } from './rows.js';
import { servicesMatch, toPg, type Sql } from './sql.js';
import type {
  CallAggregate,
  CallCountQuery,
  CallCountRow,
  CallSeriesQuery,
  CallSeriesRow,
  ExecutionAggregate,
  ExecutionCountRow,
  FailureDrop,
  FailureQuery,
  PendingKey,
  PendingRow,
  Store,
  StoredFailure,
  WriteBatch,
} from './store.js';

interface Pending {
  batch: WriteBatch;
  resolve: () => void;
  reject: (err: Error) => void;
}

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
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;
  private flushing: Promise<void> | null = null;
  private closed = false;
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
    if (this.closed) return Promise.reject(new Error('store is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ batch, resolve, reject });
      this.schedule();
    });
  }

  pendingWrites(): number {
    return this.queue.length + this.inFlight;
  }

  /** At most one group in flight: what arrives meanwhile waits and goes into the next group. */
  private schedule(): void {
    if (this.scheduled || this.flushing || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.flushing || this.queue.length === 0) return;
      this.flushing = this.flush().finally(() => {
        this.flushing = null;
        this.schedule();
      });
    });
  }

  private async flush(): Promise<void> {
    const items = this.queue;
    this.queue = [];
    this.inFlight = items.length;
    const settle = (it: Pending, err?: Error): void => {
      this.inFlight--;
      if (err) it.reject(err);
      else it.resolve();
    };
    try {
      await this.writeGroup(items.map((it) => it.batch));
      for (const it of items) settle(it);
    } catch (groupErr) {
      // No connection, server going away: retrying batch by batch would only wait N times as long.
      if (items.length === 1 || !mayBeOneBatchsFault(groupErr)) {
        for (const it of items) settle(it, groupErr as Error);
        return;
      }
      // One bad batch must not fail its neighbours: retry each on its own.
      for (const it of items) {
        try {
          await this.writeGroup([it.batch]);
          settle(it);
        } catch (err) {
          settle(it, err as Error);
        }
      }
    }
  }

  private async transaction<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return withTransaction(await this.connect(), fn);
  }

  /** Batches in one transaction; a COMMIT whose answer was lost is settled by the server (pg-in-doubt.ts). */
  private async writeGroup(batches: WriteBatch[]): Promise<void> {
    await withResolvedCommit(
      await this.connect(),
      (c) => applyGroup(c, batches),
      (xid) => xactCommitted(this.pool, xid),
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
      async (c) => {
        const res = await c.query<{ trace_id: string; call_key: string }>(
          `DELETE FROM pending_calls p USING unnest($1::text[], $2::text[]) AS r(trace_id, call_key)
           WHERE p.trace_id = r.trace_id AND p.call_key = r.call_key AND p.owner = $3
           RETURNING p.trace_id, p.call_key`,
          [sorted.map((k) => k.traceId), sorted.map((k) => k.callKey), owner],
        );
        const gone = new Set(res.rows.map((r) => JSON.stringify([r.trace_id, r.call_key])));
        held = keys.filter((k) => gone.has(JSON.stringify([k.traceId, k.callKey])));
        if (held.length > 0) await applyGroup(c, [build(held)]);
      },
      (xid) => xactCommitted(this.pool, xid),
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
    // Commit what was accepted: wait for the group in flight, then flush what queued behind it.
    while (this.flushing || this.queue.length > 0) {
      if (this.flushing) await this.flushing;
      else await (this.flushing = this.flush().finally(() => (this.flushing = null)));
    }
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

/** Applies many batches in the caller's transaction: one statement per table. */
async function applyGroup(c: pg.PoolClient, batches: WriteBatch[]): Promise<void> {
  const calls = mergeSorted(
    batches.flatMap((b) => b.callAggregates),
    (r: CallAggregate) => [r.minute, r.source, r.service, r.model, r.tool, r.outcome, r.reason],
    'count',
  );
  const execs = mergeSorted(
    batches.flatMap((b) => b.executionAggregates),
    (r: ExecutionAggregate) => [r.minute, r.source, r.service, r.model, r.tool, r.status, r.callOutcome],
    'count',
  );
  const drops = mergeSorted(
    batches.flatMap((b) => b.failureDrops),
    (r: FailureDrop) => [r.minute, r.service, r.tool],
    'dropped',
  );
  const failures = batches.flatMap((b) => b.failures);
  const pending = netPending(batches);

  if (calls.length > 0) {
    await c.query(
      `INSERT INTO call_minutes (minute, source, service, model, tool, outcome, reason, count)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[])
       ON CONFLICT (minute, source, service, model, tool, outcome, reason)
       DO UPDATE SET count = call_minutes.count + excluded.count`,
      [
        calls.map((r) => r.minute),
        calls.map((r) => r.source),
        calls.map((r) => r.service),
        calls.map((r) => r.model),
        calls.map((r) => r.tool),
        calls.map((r) => r.outcome),
        calls.map((r) => r.reason),
        calls.map((r) => r.count),
      ],
    );
  }
  if (execs.length > 0) {
    await c.query(
      `INSERT INTO execution_minutes (minute, source, service, model, tool, status, call_outcome, count)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                            $8::bigint[])
       ON CONFLICT (minute, source, service, model, tool, status, call_outcome)
       DO UPDATE SET count = execution_minutes.count + excluded.count`,
      [
        execs.map((r) => r.minute),
        execs.map((r) => r.source),
        execs.map((r) => r.service),
        execs.map((r) => r.model),
        execs.map((r) => r.tool),
        execs.map((r) => r.status),
        execs.map((r) => r.callOutcome),
        execs.map((r) => r.count),
      ],
    );
  }
  if (failures.length > 0) {
    // unnest keeps the array order, so ids follow arrival order as in SQLite.
    await c.query(
      `INSERT INTO failures (time_ms, source, service, model, tool, name, outcome, trace_id, span_id, call_id, arguments, errors, message,
         arguments_omitted, reason)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                            $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[],
                            $15::text[])`,
      [
        failures.map((f) => f.timeMs),
        failures.map((f) => f.source),
        failures.map((f) => f.service),
        failures.map((f) => f.model),
        failures.map((f) => f.tool),
        failures.map((f) => f.name),
        failures.map((f) => f.outcome),
        failures.map((f) => f.traceId),
        failures.map((f) => f.spanId),
        failures.map((f) => f.callId ?? null),
        failures.map((f) => f.arguments ?? null),
        failures.map((f) => JSON.stringify(f.errors)),
        failures.map((f) => f.message),
        failures.map((f) => f.argumentsOmitted ?? null),
        failures.map((f) => f.reason ?? null),
      ],
    );
  }
  if (drops.length > 0) {
    await c.query(
      `INSERT INTO failure_drops (minute, service, tool, dropped)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[])
       ON CONFLICT (minute, service, tool) DO UPDATE SET dropped = failure_drops.dropped + excluded.dropped`,
      [drops.map((d) => d.minute), drops.map((d) => d.service), drops.map((d) => d.tool), drops.map((d) => d.dropped)],
    );
  }
  if (pending.remove.length > 0) {
    await c.query(
      `DELETE FROM pending_calls p USING unnest($1::text[], $2::text[]) AS r(trace_id, call_key)
       WHERE p.trace_id = r.trace_id AND p.call_key = r.call_key`,
      [pending.remove.map((r) => r.traceId), pending.remove.map((r) => r.callKey)],
    );
  }
  if (pending.add.length > 0) {
    // As SQLite's INSERT OR REPLACE: a call deferred again replaces its row (and this process holds it).
    await c.query(
      `INSERT INTO pending_calls (trace_id, call_key, due_ms, payload, owner)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[])
       ON CONFLICT (trace_id, call_key)
       DO UPDATE SET due_ms = excluded.due_ms, payload = excluded.payload, owner = excluded.owner`,
      [
        pending.add.map((p) => p.traceId),
        pending.add.map((p) => p.callKey),
        pending.add.map((p) => p.dueMs),
        pending.add.map((p) => p.payload),
        pending.add.map((p) => p.owner ?? null),
      ],
    );
  }
  const ledger = batches.flatMap((b) => (b.ledger ? [b.ledger] : []));
  if (ledger.length > 0) {
    await c.query(
      'INSERT INTO ledger_batches (time_ms, traces, body) SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[])',
      [ledger.map((r) => r.timeMs), ledger.map((r) => r.traces), ledger.map((r) => r.body)],
    );
  }
  // Extensions only write: collect their statements, then run them in order on this transaction.
  const statements: [string, readonly unknown[]][] = [];
  const tx = { run: (sql: string, params: readonly unknown[] = []) => void statements.push([sql, params]) };
  for (const b of batches) for (const x of b.extensions) x(tx);
  for (const [sql, params] of statements) await c.query(toPg(sql), params as unknown[]);
}

/**
 * The pending-call changes of many batches as one net change per (trace, call key): applied in
 * order (each batch's adds, then its removes) the last word on a key wins, exactly as applying the
 * batches one by one would leave the table. Sorted by key, for the same lock order everywhere.
 */
function netPending(batches: WriteBatch[]): { add: PendingRow[]; remove: { traceId: string; callKey: string }[] } {
  const last = new Map<string, { traceId: string; callKey: string; row: PendingRow | null }>();
  for (const b of batches) {
    for (const p of b.pendingAdd)
      last.set(JSON.stringify([p.traceId, p.callKey]), { traceId: p.traceId, callKey: p.callKey, row: p });
    for (const p of b.pendingRemove)
      last.set(JSON.stringify([p.traceId, p.callKey]), { traceId: p.traceId, callKey: p.callKey, row: null });
  }
  const sorted = [...last.values()].sort((a, b) => compareKeys([a.traceId, a.callKey], [b.traceId, b.callKey]));
  return {
    add: sorted.flatMap((e) => (e.row ? [e.row] : [])),
    remove: sorted.filter((e) => !e.row).map(({ traceId, callKey }) => ({ traceId, callKey })),
  };
}

/**
 * Sums rows with the same key (one INSERT … ON CONFLICT DO UPDATE cannot touch a row twice) and
 * sorts by key, so concurrent transactions lock rows in one order.
 */
function mergeSorted<R, K extends keyof R>(rows: R[], key: (r: R) => (string | number)[], sum: K): R[] {
  if (rows.length === 0) return rows;
  const byKey = new Map<string, { k: (string | number)[]; row: R }>();
  for (const r of rows) {
    const k = key(r);
    const id = JSON.stringify(k);
    const prev = byKey.get(id);
    if (prev) (prev.row[sum] as unknown as number) += r[sum] as unknown as number;
    else byKey.set(id, { k, row: { ...r } });
  }
  return [...byKey.values()].sort((a, b) => compareKeys(a.k, b.k)).map((e) => e.row);
}

function compareKeys(a: (string | number)[], b: (string | number)[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
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
