/**
 * The judge's trajectories over the store's SQL port: the rows a batch adds for its candidate traces
 * inside the core store's transaction (see trajectory.ts), completing idle ones (sampled → pending,
 * the rest dropped), reading one back, the attempts the job makes at them, and their retention.
 */
import { num, optStr } from '../store/rows.js';
import { servicesMatch, type BatchExtension, type Row, type Sql } from '../store/sql.js';
import { storableText } from '../store/storable-text.js';
import { yieldToLoop } from '../util/yield.js';
import type { ToolDef } from '../model.js';
import { assemble, type TrajectoryHeader } from './assemble.js';
import { completeChunk, FINALIZE_TX_ROWS } from './complete-chunk.js';
import { type OfferedTools, withOffered } from './steps.js';
import type { Step, Trajectory, TrajectoryStatus } from './types.js';

/** What one batch adds for one candidate trace. */
export interface TrajectoryWrite {
  traceId: string;
  service: string;
  firstMs: number;
  endMs: number;
  /** Ingest time: the idle clock. */
  seenMs: number;
  hasFailure: boolean;
  position: number;
  /** `offered`: the judge_offered row holding the step's offered tools (storedStep keeps them out of the payload). */
  steps: { spanId: string; startMs: number; endMs: number; kind: Step['kind']; payload: string; offered?: string }[];
  /**
   * The service globs the batch's sender may write (undefined: any). Its spans join a stored
   * trajectory only when the sender may write the trajectory's service: trace ids are no secret.
   */
  writer?: readonly string[] | undefined;
}

// Rows per statement: 8, 6 and 3 parameters each, far below either database's limit.
const MAX_HEADER_ROWS_PER_STATEMENT = 200;
const MAX_STEP_ROWS_PER_STATEMENT = 200;
const MAX_OFFERED_ROWS_PER_STATEMENT = 200;

/**
 * A trajectory's service is the one it was first stored under and never changes (an earlier span of
 * another service only widens its time range); `writable` restricts which trajectories a batch may add to.
 */
const upsertHeaders = (rows: number, writable: string) => `
  INSERT INTO judge_trajectories (trace_id, service, first_ms, end_ms, last_seen_ms, has_failure, position, status, updated_ms)
  VALUES ${Array.from({ length: rows }, () => "(?, ?, ?, ?, ?, ?, ?, 'open', ?)").join(', ')}
  ON CONFLICT (trace_id) DO UPDATE SET
    first_ms = CASE WHEN excluded.first_ms < judge_trajectories.first_ms THEN excluded.first_ms ELSE judge_trajectories.first_ms END,
    end_ms = CASE WHEN excluded.end_ms > judge_trajectories.end_ms THEN excluded.end_ms ELSE judge_trajectories.end_ms END,
    last_seen_ms = CASE WHEN excluded.last_seen_ms > judge_trajectories.last_seen_ms THEN excluded.last_seen_ms ELSE judge_trajectories.last_seen_ms END,
    has_failure = CASE WHEN excluded.has_failure = 1 THEN 1 ELSE judge_trajectories.has_failure END,
    updated_ms = excluded.updated_ms
  WHERE judge_trajectories.status = 'open'${writable}`;

/**
 * Steps only join an open trajectory (spans arriving after it completed are ignored, documented) whose
 * service the sender may write (`writable`), under its sequential id (migration 019), found by its
 * trace id in the same statement. One statement per trace: its lookup runs once (a lookup per row
 * against the row's own trace, for all traces of a batch in one statement, cost more).
 */
const insertSteps = (rows: number, writable: string) => `
  INSERT INTO judge_steps (trajectory, span_id, start_ms, end_ms, kind, payload, offered)
  SELECT judge_trajectories.id, v.*
  FROM (VALUES ${Array.from({ length: rows }, () => '(?, CAST(? AS BIGINT), CAST(? AS BIGINT), ?, ?, CAST(? AS TEXT))').join(', ')}) AS v,
    judge_trajectories
  WHERE judge_trajectories.trace_id = ? AND judge_trajectories.status = 'open'${writable}
  ON CONFLICT (trajectory, span_id) DO NOTHING`;

/**
 * Offered tool lists are stored once each, by their hash: a batch inserts those it refers to that are
 * not stored yet (no write, no row lock for the others). `last_used_ms` keeps a list in use from
 * retention; it is moved forward by a separate UPDATE at most once a minute per list and instance
 * (see offeredStatements), not by every batch.
 */
const insertOffered = (rows: number) => `
  INSERT INTO judge_offered (ref, tools, last_used_ms)
  VALUES ${Array.from({ length: rows }, () => '(?, ?, ?)').join(', ')}
  ON CONFLICT (ref) DO NOTHING`;

/**
 * Statement texts by row count and writer clause, built once: the SQL port prepares a statement per
 * distinct text, so one string per shape finds it again instead of building and hashing a new one.
 */
const texts = new Map<string, string>();
function text(kind: 'headers' | 'steps' | 'offered', rows: number, writable: string): string {
  const key = `${kind}:${rows}:${writable}`;
  let t = texts.get(key);
  if (t === undefined) {
    if (texts.size >= 2000) texts.clear();
    const build = kind === 'headers' ? upsertHeaders : kind === 'steps' ? insertSteps : insertOffered;
    texts.set(key, (t = build(rows, writable)));
  }
  return t;
}

/** How often an instance moves a list's `last_used_ms` forward while its steps keep referring to it. */
const OFFERED_REFRESH_MS = 60_000;

/**
 * One batch's writes: per run of writes with the same sender's globs, the headers of its traces in
 * multi-row statements (first, so every step below finds its trajectory), then each trace's steps. A header statement holds each stored
 * trace id once (PostgreSQL refuses to update one row twice in a statement; storableText may map
 * two ids to one).
 */
function statementsFor(writes: readonly TrajectoryWrite[], dialect: Sql['dialect']): [string, unknown[]][] {
  // Runs of writes with the same globs, in order (a sink's batch has one sender: one run).
  const runs: TrajectoryWrite[][] = [];
  for (const w of writes) {
    const last = runs[runs.length - 1];
    if (last && last[0]!.writer === w.writer) last.push(w);
    else runs.push([w]);
  }
  const out: [string, unknown[]][] = [];
  for (const group of runs) {
    const writer = group[0]!.writer;
    // The sender's globs against the stored trajectory's service, as SQL and its parameters.
    const globArgs: string[] = [];
    const writable = writer
      ? ` AND ${servicesMatch(dialect, 'judge_trajectories.service', writer, (v) => (globArgs.push(v), '?'))}`
      : '';
    let params: unknown[] = [];
    let ids = new Set<string>();
    const flushHeaders = () => {
      if (ids.size === 0) return;
      out.push([text('headers', ids.size, writable), globArgs.length ? [...params, ...globArgs] : params]);
      params = [];
      ids = new Set();
    };
    for (const w of group) {
      const traceId = storableText(w.traceId);
      if (ids.has(traceId) || ids.size >= MAX_HEADER_ROWS_PER_STATEMENT) flushHeaders();
      ids.add(traceId);
      params.push(traceId, storableText(w.service), w.firstMs, w.endMs, w.seenMs, w.hasFailure ? 1 : 0);
      params.push(w.position, w.seenMs);
    }
    flushHeaders();
    for (const w of group) {
      const traceId = storableText(w.traceId);
      for (let i = 0; i < w.steps.length; i += MAX_STEP_ROWS_PER_STATEMENT) {
        const chunk =
          w.steps.length <= MAX_STEP_ROWS_PER_STATEMENT ? w.steps : w.steps.slice(i, i + MAX_STEP_ROWS_PER_STATEMENT);
        const stepParams: unknown[] = [];
        // Span ids are hex (OTLP) or Langfuse ids; the payload is JSON, whose escapes are storable.
        for (const s of chunk)
          stepParams.push(storableText(s.spanId), s.startMs, s.endMs, s.kind, s.payload, s.offered ?? null);
        stepParams.push(traceId, ...globArgs);
        out.push([text('steps', chunk.length, writable), stepParams]);
      }
    }
  }
  return out;
}

/** Idle candidates read per SELECT when completing them. */
const FINALIZE_BATCH = 5000;

export class TrajectoryStore {
  /** When this instance last moved each offered list's `last_used_ms` forward (bounded: cleared when large). */
  private readonly refreshed = new Map<string, number>();

  constructor(readonly sql: Sql) {}

  /**
   * The rows one batch adds for its candidate traces, inside the batch's own transaction: the offered
   * lists its steps refer to (`offered`, one each), then the trajectories and their steps.
   */
  ingestExtension(writes: readonly TrajectoryWrite[], offered: readonly OfferedTools[] = []): BatchExtension {
    const nowMs = writes[0]?.seenMs ?? 0;
    const statements = [...this.offeredStatements(offered, nowMs), ...statementsFor(writes, this.sql.dialect)];
    return (tx) => {
      for (const [text, params] of statements) tx.run(text, params);
    };
  }

  /**
   * The refresh comes before the insert: on PostgreSQL its row lock orders it against a concurrent
   * prune (which deletes only lists unused for the retention period and referred to by no step), so
   * a list is either kept by the refresh or deleted first and inserted again. A list this instance
   * has not refreshed yet is refreshed with its first batch.
   */
  private offeredStatements(offered: readonly OfferedTools[], nowMs: number): [string, unknown[]][] {
    const out: [string, unknown[]][] = [];
    for (const o of offered) {
      const last = this.refreshed.get(o.ref);
      if (last !== undefined && nowMs - last < OFFERED_REFRESH_MS) continue;
      if (this.refreshed.size >= 10_000) this.refreshed.clear();
      this.refreshed.set(o.ref, nowMs);
      out.push([
        'UPDATE judge_offered SET last_used_ms = ? WHERE ref = ? AND last_used_ms < ?',
        [nowMs, o.ref, nowMs - OFFERED_REFRESH_MS],
      ]);
    }
    for (let i = 0; i < offered.length; i += MAX_OFFERED_ROWS_PER_STATEMENT) {
      const chunk = offered.slice(i, i + MAX_OFFERED_ROWS_PER_STATEMENT);
      out.push([text('offered', chunk.length, ''), chunk.flatMap((o) => [o.ref, o.json, nowMs])]);
    }
    return out;
  }

  /**
   * Completes idle candidates: sampled → pending (with their probability), the rest → dropped (steps
   * deleted). `negativeFeedback` says which of them got negative user feedback by now (their stratum).
   * Reads them in batches until none is left (at most `maxBatches` of FINALIZE_BATCH), so a backlog
   * never outgrows what one call completes: every idle candidate's steps are gone once it returns.
   */
  async finalize(
    nowMs: number,
    idleMs: number,
    probabilityOf: (service: string, hasFailure: boolean, negativeFeedback: boolean) => number,
    negativeFeedback?: (traceIds: string[]) => Promise<Set<string>>,
    maxBatches = 100,
  ): Promise<{ pending: number; dropped: number }> {
    const cutoff = nowMs - idleMs;
    let pending = 0;
    let dropped = 0;
    for (let batch = 0; batch < maxBatches; batch++) {
      const rows = await this.sql.all<Row>(
        `SELECT trace_id, service, has_failure, position FROM judge_trajectories
         WHERE status = 'open' AND last_seen_ms <= ? ORDER BY last_seen_ms LIMIT ${FINALIZE_BATCH}`,
        [cutoff],
      );
      const ids = rows.map((r) => String(r.trace_id));
      const negative = negativeFeedback && rows.length ? await negativeFeedback(ids) : new Set<string>();
      // FINALIZE_TX_ROWS rows per transaction, and the event loop let through between them: on
      // SQLite every statement is synchronous, and a backlog of thousands held ingest to its end.
      for (let at = 0; at < rows.length; at += FINALIZE_TX_ROWS) {
        if (at > 0) await yieldToLoop();
        const done = await this.sql.tx((tx) =>
          completeChunk(tx, rows.slice(at, at + FINALIZE_TX_ROWS), { nowMs, cutoff }, (r) =>
            probabilityOf(String(r.service), num(r.has_failure) === 1, negative.has(String(r.trace_id))),
          ),
        );
        pending += done.pending;
        dropped += done.dropped;
      }
      // A row a span touched meanwhile is no longer idle, so the next SELECT cannot return it again.
      if (rows.length < FINALIZE_BATCH) break;
    }
    return { pending, dropped };
  }

  async pendingIds(limit: number): Promise<string[]> {
    // Oldest first, so what a capped run left behind goes first next time.
    const rows = await this.sql.all<Row>(
      `SELECT trace_id FROM judge_trajectories WHERE status = 'pending' ORDER BY last_seen_ms, trace_id LIMIT ?`,
      [limit],
    );
    return rows.map((r) => String(r.trace_id));
  }

  /** `services`: only trajectories of services matching these globs (a reader's view). */
  async countByStatus(services?: readonly string[]): Promise<Record<string, number>> {
    const args: unknown[] = [];
    const where = services
      ? `WHERE ${servicesMatch(this.sql.dialect, 'service', services, (v) => (args.push(v), '?'))}`
      : '';
    const rows = await this.sql.all<Row>(
      `SELECT status, COUNT(*) AS n FROM judge_trajectories ${where} GROUP BY status`,
      args,
    );
    return Object.fromEntries(rows.map((r) => [String(r.status), num(r.n)]));
  }

  async trajectory(traceId: string): Promise<Trajectory | undefined> {
    const [h] = await this.sql.all<Row>('SELECT * FROM judge_trajectories WHERE trace_id = ?', [traceId]);
    if (!h || h.status === 'dropped') return undefined;
    const rows = await this.sql.all<Row>('SELECT payload, offered FROM judge_steps WHERE trajectory = ?', [num(h.id)]);
    const lists = await this.offeredLists(rows.map((r) => optStr(r.offered)));
    const steps: Step[] = [];
    for (const r of rows) {
      try {
        const ref = optStr(r.offered);
        const offered = ref === undefined ? undefined : lists.get(ref);
        if (offered instanceof Error) throw offered;
        steps.push(withOffered(String(r.payload), offered));
      } catch {
        // An unreadable step is left out rather than failing the whole trajectory.
      }
    }
    const header: TrajectoryHeader = {
      traceId,
      service: String(h.service),
      firstMs: num(h.first_ms),
      endMs: num(h.end_ms),
      hasFailure: num(h.has_failure) === 1,
      status: String(h.status) as TrajectoryStatus,
      probability: h.probability === null || h.probability === undefined ? null : num(h.probability),
      attempts: num(h.attempts),
      ...(optStr(h.last_error) ? { lastError: optStr(h.last_error)! } : {}),
    };
    return assemble(header, steps);
  }

  /**
   * The offered lists these steps name, each read and parsed once (a trajectory's model steps mostly
   * name the same one); an unreadable list as its error, so the steps naming it are left out as an
   * unreadable step is. A list that is gone is absent: its steps come back without tools.
   */
  private async offeredLists(refs: readonly (string | undefined)[]): Promise<Map<string, ToolDef[] | Error>> {
    const wanted = [...new Set(refs.filter((r): r is string => r !== undefined))];
    const out = new Map<string, ToolDef[] | Error>();
    if (wanted.length === 0) return out;
    const rows = await this.sql.all<Row>(
      `SELECT ref, tools FROM judge_offered WHERE ref IN (${wanted.map(() => '?').join(', ')})`,
      wanted,
    );
    for (const r of rows) {
      try {
        out.set(String(r.ref), JSON.parse(String(r.tools)) as ToolDef[]);
      } catch (err) {
        out.set(String(r.ref), err as Error);
      }
    }
    return out;
  }

  /** Which of these traces have a trajectory that GET /api/trajectories/:traceId would return (not dropped). */
  async storedTraceIds(traceIds: readonly string[]): Promise<Set<string>> {
    const ids = [...new Set(traceIds)].slice(0, 500);
    if (ids.length === 0) return new Set();
    const rows = await this.sql.all<Row>(
      `SELECT trace_id FROM judge_trajectories WHERE status <> 'dropped' AND trace_id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    return new Set(rows.map((r) => String(r.trace_id)));
  }

  /** The item could not be judged now (transport, caps, redaction): it stays pending. */
  async recordAttemptFailure(traceId: string, error: string, nowMs: number): Promise<void> {
    await this.sql.run(
      `UPDATE judge_trajectories SET attempts = attempts + 1, last_error = ?, updated_ms = ? WHERE trace_id = ? AND status = 'pending'`,
      [error.slice(0, 2000), nowMs, traceId],
    );
  }

  async prune(beforeMs: number): Promise<number> {
    return this.sql.tx(async (tx) => {
      const old = `SELECT id FROM judge_trajectories WHERE status IN ('judged', 'error', 'dropped') AND updated_ms < ?`;
      let removed = await tx.run(`DELETE FROM judge_steps WHERE trajectory IN (${old})`, [beforeMs]);
      removed += await tx.run(
        `DELETE FROM judge_trajectories WHERE status IN ('judged', 'error', 'dropped') AND updated_ms < ?`,
        [beforeMs],
      );
      // Offered lists no step refers to any more and no batch used for as long (see offeredStatements).
      removed += await tx.run(
        `DELETE FROM judge_offered WHERE last_used_ms < ?
         AND ref NOT IN (SELECT offered FROM judge_steps WHERE offered IS NOT NULL)`,
        [beforeMs],
      );
      return removed;
    });
  }
}
