/**
 * Judge storage, written once over the store's SQL port and so the same on SQLite and PostgreSQL.
 * `ingestExtension` gives the rows a batch adds inside the core store's transaction (see
 * trajectory.ts); everything else is the job's and the API's.
 */
import { num, numOrNull, optStr } from '../store/rows.js';
import { servicesMatch, type BatchExtension, type Row, type Sql } from '../store/sql.js';
import { storableText } from '../store/storable-text.js';
import { assemble, type TrajectoryHeader } from './assemble.js';
import type { Label, RunRecord, Step, Trajectory, TrajectoryStatus, VerdictRecord } from './types.js';

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
  steps: { spanId: string; startMs: number; endMs: number; kind: Step['kind']; payload: string }[];
  /**
   * The service globs the batch's sender may write (undefined: any). Its spans join a stored
   * trajectory only when the sender may write the trajectory's service: trace ids are no secret.
   */
  writer?: readonly string[] | undefined;
}

export interface VerdictPoint {
  traceId: string;
  service: string;
  /** The judged agent's model (its trajectory's). */
  model?: string;
  runId: number;
  reachedGoal: boolean;
  unnecessaryCalls: number;
  dangerousCalls: number;
  weight: number;
  /** The judged agent's tokens over the trajectory; null when its spans reported none (or the verdict predates it). */
  agentTokens?: number | null;
}

export interface LatestVerdict {
  service: string;
  model: string;
  timeMs: number;
  reached_goal: boolean;
  unnecessary_calls: number;
  dangerous_calls: number;
  reasoning?: string;
}

export interface LabelPair {
  judge: { reached_goal: boolean; unnecessary_calls: number; dangerous_calls: number };
  human: { reached_goal: boolean; unnecessary_calls: number; dangerous_calls: number };
}

const MAX_STEP_ROWS_PER_STATEMENT = 200; // 6 parameters each: far below SQLite's limit

/**
 * A trajectory's service is the one it was first stored under and never changes (an earlier span of
 * another service only widens its time range); `writable` restricts which trajectories a batch may add to.
 */
const upsertHeader = (writable: string) => `
  INSERT INTO judge_trajectories (trace_id, service, first_ms, end_ms, last_seen_ms, has_failure, position, status, updated_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?)
  ON CONFLICT (trace_id) DO UPDATE SET
    first_ms = CASE WHEN excluded.first_ms < judge_trajectories.first_ms THEN excluded.first_ms ELSE judge_trajectories.first_ms END,
    end_ms = CASE WHEN excluded.end_ms > judge_trajectories.end_ms THEN excluded.end_ms ELSE judge_trajectories.end_ms END,
    last_seen_ms = CASE WHEN excluded.last_seen_ms > judge_trajectories.last_seen_ms THEN excluded.last_seen_ms ELSE judge_trajectories.last_seen_ms END,
    has_failure = CASE WHEN excluded.has_failure = 1 THEN 1 ELSE judge_trajectories.has_failure END,
    updated_ms = excluded.updated_ms
  WHERE judge_trajectories.status = 'open'${writable}`;

/**
 * Steps only join an open trajectory (spans arriving after it completed are ignored, documented) whose
 * service the sender may write (`writable`).
 */
function insertSteps(n: number, writable: string): string {
  const row = '(?, ?, CAST(? AS BIGINT), CAST(? AS BIGINT), ?, ?)';
  return `INSERT INTO judge_steps (trace_id, span_id, start_ms, end_ms, kind, payload)
    SELECT * FROM (VALUES ${Array.from({ length: n }, () => row).join(', ')}) AS v
    WHERE EXISTS (SELECT 1 FROM judge_trajectories WHERE trace_id = ? AND status = 'open'${writable})
    ON CONFLICT (trace_id, span_id) DO NOTHING`;
}

function statementsFor(w: TrajectoryWrite, dialect: Sql['dialect']): [string, unknown[]][] {
  // The sender's globs against the stored trajectory's service, as SQL and its parameters.
  const globArgs: string[] = [];
  const writable = w.writer
    ? ` AND ${servicesMatch(dialect, 'judge_trajectories.service', w.writer, (v) => (globArgs.push(v), '?'))}`
    : '';
  const out: [string, unknown[]][] = [
    [
      upsertHeader(writable),
      [
        storableText(w.traceId),
        storableText(w.service),
        w.firstMs,
        w.endMs,
        w.seenMs,
        w.hasFailure ? 1 : 0,
        w.position,
        w.seenMs,
        ...globArgs,
      ],
    ],
  ];
  for (let i = 0; i < w.steps.length; i += MAX_STEP_ROWS_PER_STATEMENT) {
    const chunk = w.steps.slice(i, i + MAX_STEP_ROWS_PER_STATEMENT);
    // Span ids are hex (OTLP) or Langfuse ids; the payload is JSON, whose escapes are storable.
    const traceId = storableText(w.traceId);
    const params = chunk.flatMap((s) => [traceId, storableText(s.spanId), s.startMs, s.endMs, s.kind, s.payload]);
    out.push([insertSteps(chunk.length, writable), [...params, traceId, ...globArgs]]);
  }
  return out;
}

/** Idle candidates read per SELECT when completing them. */
const FINALIZE_BATCH = 5000;

export class JudgeStore {
  constructor(readonly sql: Sql) {}

  /** The rows one batch adds for its candidate traces, inside the batch's own transaction. */
  ingestExtension(writes: readonly TrajectoryWrite[]): BatchExtension {
    const statements = writes.flatMap((w) => statementsFor(w, this.sql.dialect));
    return (tx) => {
      for (const [text, params] of statements) tx.run(text, params);
    };
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
      for (const r of rows) {
        const p = probabilityOf(String(r.service), num(r.has_failure) === 1, negative.has(String(r.trace_id)));
        const sampled = num(r.position) < p;
        await this.sql.tx(async (tx) => {
          // Re-checked in the UPDATE: a span may have arrived (on another replica) since the SELECT.
          const changed = await tx.run(
            `UPDATE judge_trajectories SET status = ?, probability = ?, updated_ms = ?
             WHERE trace_id = ? AND status = 'open' AND last_seen_ms <= ?`,
            [sampled ? 'pending' : 'dropped', p, nowMs, r.trace_id, cutoff],
          );
          if (changed === 0) return;
          if (sampled) pending++;
          else {
            dropped++;
            await tx.run('DELETE FROM judge_steps WHERE trace_id = ?', [r.trace_id]);
          }
        });
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
    const rows = await this.sql.all<Row>('SELECT payload FROM judge_steps WHERE trace_id = ?', [traceId]);
    const steps: Step[] = [];
    for (const r of rows) {
      try {
        steps.push(JSON.parse(String(r.payload)) as Step);
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

  async recordVerdict(v: VerdictRecord): Promise<void> {
    await this.sql.tx(async (tx) => {
      await tx.run(
        `INSERT INTO judge_verdicts (trace_id, run_id, time_ms, service, model, status, reached_goal, unnecessary_calls, dangerous_calls, reasoning, error,
           prompt_version, judge_model, probability, weight, input_tokens, output_tokens, cost, agent_tokens, agent_tool_calls)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          v.traceId,
          v.runId,
          v.timeMs,
          v.service,
          v.model,
          v.status,
          v.verdict ? (v.verdict.reached_goal ? 1 : 0) : null,
          v.verdict?.unnecessary_calls ?? null,
          v.verdict?.dangerous_calls ?? null,
          v.verdict?.reasoning ?? null,
          v.error ?? null,
          v.promptVersion,
          v.judgeModel,
          v.probability,
          v.weight,
          v.inputTokens,
          v.outputTokens,
          v.cost,
          v.agentTokens ?? null,
          v.agentToolCalls ?? null,
        ],
      );
      await tx.run(
        `UPDATE judge_trajectories SET status = ?, attempts = attempts + 1, last_error = ?, updated_ms = ? WHERE trace_id = ?`,
        [v.status === 'ok' ? 'judged' : 'error', v.error ?? null, v.timeMs, v.traceId],
      );
    });
  }

  /** The item could not be judged now (transport, caps, redaction): it stays pending. */
  async recordAttemptFailure(traceId: string, error: string, nowMs: number): Promise<void> {
    await this.sql.run(
      `UPDATE judge_trajectories SET attempts = attempts + 1, last_error = ?, updated_ms = ? WHERE trace_id = ? AND status = 'pending'`,
      [error.slice(0, 2000), nowMs, traceId],
    );
  }

  async startRun(startedMs: number, promptVersion: string, judgeModel: string): Promise<number> {
    const [r] = await this.sql.all<Row>(
      `INSERT INTO judge_runs (started_ms, status, prompt_version, judge_model) VALUES (?, 'running', ?, ?) RETURNING id`,
      [startedMs, promptVersion, judgeModel],
    );
    return num(r?.id);
  }

  async finishRun(r: Omit<RunRecord, 'startedMs' | 'promptVersion' | 'judgeModel'>): Promise<void> {
    await this.sql.run(
      `UPDATE judge_runs SET finished_ms = ?, status = ?, judged = ?, errors = ?, left_pending = ?, input_tokens = ?, output_tokens = ?, cost = ?, stop_reason = ? WHERE id = ?`,
      [
        r.finishedMs,
        r.status,
        r.judged,
        r.errors,
        r.leftPending,
        r.inputTokens,
        r.outputTokens,
        r.cost,
        r.stopReason,
        r.id,
      ],
    );
  }

  async runs(limit: number): Promise<RunRecord[]> {
    const rows = await this.sql.all<Row>('SELECT * FROM judge_runs ORDER BY id DESC LIMIT ?', [limit]);
    return rows.map((r) => ({
      id: num(r.id),
      startedMs: num(r.started_ms),
      finishedMs: r.finished_ms === null ? null : num(r.finished_ms),
      status: String(r.status),
      judged: num(r.judged),
      errors: num(r.errors),
      leftPending: num(r.left_pending),
      inputTokens: num(r.input_tokens),
      outputTokens: num(r.output_tokens),
      cost: num(r.cost),
      stopReason: optStr(r.stop_reason) ?? null,
      promptVersion: String(r.prompt_version),
      judgeModel: String(r.judge_model),
    }));
  }

  async verdictPoints(q: {
    sinceMs?: number;
    service?: string;
    services?: readonly string[];
    runIds?: number[];
  }): Promise<VerdictPoint[]> {
    const where = ["status = 'ok'"];
    const args: unknown[] = [];
    if (q.sinceMs !== undefined) where.push('time_ms >= ?'), args.push(q.sinceMs);
    if (q.service) where.push('service = ?'), args.push(q.service);
    if (q.services) where.push(servicesMatch(this.sql.dialect, 'service', q.services, (v) => (args.push(v), '?')));
    if (q.runIds) {
      if (q.runIds.length === 0) return [];
      where.push(`run_id IN (${q.runIds.map(() => '?').join(', ')})`);
      args.push(...q.runIds);
    }
    const rows = await this.sql.all<Row>(
      `SELECT trace_id, service, model, run_id, reached_goal, unnecessary_calls, dangerous_calls, weight, agent_tokens
       FROM judge_verdicts WHERE ${where.join(' AND ')} ORDER BY id`,
      args,
    );
    return rows.map((r) => ({
      traceId: String(r.trace_id),
      service: String(r.service),
      model: String(r.model),
      runId: num(r.run_id),
      reachedGoal: num(r.reached_goal) === 1,
      unnecessaryCalls: num(r.unnecessary_calls),
      dangerousCalls: num(r.dangerous_calls),
      weight: num(r.weight),
      agentTokens: numOrNull(r.agent_tokens),
    }));
  }

  /** The latest successful verdict per trace (judged since sinceMs; for one service; of these traces). */
  async latestVerdicts(q: {
    sinceMs?: number;
    service?: string;
    /** Service globs a reader may see (src/util/service-view.ts); absent = every service. */
    services?: readonly string[];
    traceIds?: readonly string[];
  }): Promise<Map<string, LatestVerdict>> {
    const where = [
      "v.status = 'ok'",
      "v.id = (SELECT MAX(w.id) FROM judge_verdicts w WHERE w.trace_id = v.trace_id AND w.status = 'ok')",
    ];
    const args: unknown[] = [];
    if (q.sinceMs !== undefined) where.push('v.time_ms >= ?'), args.push(q.sinceMs);
    if (q.service) where.push('v.service = ?'), args.push(q.service);
    if (q.services) where.push(servicesMatch(this.sql.dialect, 'v.service', q.services, (v) => (args.push(v), '?')));
    if (q.traceIds) {
      if (q.traceIds.length === 0) return new Map();
      where.push(`v.trace_id IN (${q.traceIds.map(() => '?').join(', ')})`);
      args.push(...q.traceIds);
    }
    const rows = await this.sql.all<Row>(
      `SELECT v.trace_id, v.service, v.model, v.time_ms, v.reached_goal, v.unnecessary_calls, v.dangerous_calls, v.reasoning FROM judge_verdicts v
       WHERE ${where.join(' AND ')} ORDER BY v.time_ms DESC`,
      args,
    );
    return new Map(
      rows.map((r) => [
        String(r.trace_id),
        {
          service: String(r.service),
          model: String(r.model),
          timeMs: num(r.time_ms),
          reached_goal: num(r.reached_goal) === 1,
          unnecessary_calls: num(r.unnecessary_calls),
          dangerous_calls: num(r.dangerous_calls),
          ...(optStr(r.reasoning) !== undefined ? { reasoning: optStr(r.reasoning)! } : {}),
        },
      ]),
    );
  }

  async upsertLabels(labels: readonly Label[], nowMs: number): Promise<number> {
    return this.sql.tx(async (tx) => {
      for (const l of labels) {
        await tx.run(
          `INSERT INTO judge_labels (trace_id, reached_goal, unnecessary_calls, dangerous_calls, labeler, note, time_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (trace_id) DO UPDATE SET reached_goal = excluded.reached_goal, unnecessary_calls = excluded.unnecessary_calls,
             dangerous_calls = excluded.dangerous_calls, labeler = excluded.labeler, note = excluded.note, time_ms = excluded.time_ms`,
          [
            l.trace_id.toLowerCase(),
            l.reached_goal ? 1 : 0,
            l.unnecessary_calls,
            l.dangerous_calls,
            l.labeler ?? 'human',
            l.note ?? '',
            nowMs,
          ],
        );
      }
      return labels.length;
    });
  }

  async labelPairs(): Promise<LabelPair[]> {
    // The latest successful verdict per labelled trace.
    const rows = await this.sql.all<Row>(
      `SELECT v.reached_goal AS vg, v.unnecessary_calls AS vu, v.dangerous_calls AS vd, l.reached_goal AS lg, l.unnecessary_calls AS lu, l.dangerous_calls AS ld
       FROM judge_labels l JOIN judge_verdicts v ON v.trace_id = l.trace_id
       WHERE v.id = (SELECT MAX(id) FROM judge_verdicts w WHERE w.trace_id = l.trace_id AND w.status = 'ok')`,
    );
    return rows.map((r) => ({
      judge: { reached_goal: num(r.vg) === 1, unnecessary_calls: num(r.vu), dangerous_calls: num(r.vd) },
      human: { reached_goal: num(r.lg) === 1, unnecessary_calls: num(r.lu), dangerous_calls: num(r.ld) },
    }));
  }

  /** Verdicts and the human label of one trace (for the trajectory API). */
  async judgementsOf(
    traceId: string,
  ): Promise<{ verdicts: Record<string, unknown>[]; label: Record<string, unknown> | null }> {
    const verdicts = await this.sql.all<Row>('SELECT * FROM judge_verdicts WHERE trace_id = ? ORDER BY id', [traceId]);
    const [label] = await this.sql.all<Row>('SELECT * FROM judge_labels WHERE trace_id = ?', [traceId]);
    const bool = (v: unknown) => (v === null || v === undefined ? null : num(v) === 1);
    return {
      verdicts: verdicts.map((v) => ({
        runId: num(v.run_id),
        time: new Date(num(v.time_ms)).toISOString(),
        status: v.status,
        reached_goal: bool(v.reached_goal),
        unnecessary_calls: v.unnecessary_calls === null ? null : num(v.unnecessary_calls),
        dangerous_calls: v.dangerous_calls === null ? null : num(v.dangerous_calls),
        reasoning: v.reasoning ?? null,
        error: v.error ?? null,
        promptVersion: v.prompt_version,
        judgeModel: v.judge_model,
        probability: num(v.probability),
        weight: num(v.weight),
        inputTokens: num(v.input_tokens),
        outputTokens: num(v.output_tokens),
        cost: num(v.cost),
        agentTokens: numOrNull(v.agent_tokens),
        agentToolCalls: numOrNull(v.agent_tool_calls),
      })),
      label: label
        ? {
            reached_goal: bool(label.reached_goal),
            unnecessary_calls: num(label.unnecessary_calls),
            dangerous_calls: num(label.dangerous_calls),
            labeler: label.labeler,
            note: label.note,
          }
        : null,
    };
  }

  async prune(beforeMs: number): Promise<number> {
    return this.sql.tx(async (tx) => {
      const old = `SELECT trace_id FROM judge_trajectories WHERE status IN ('judged', 'error', 'dropped') AND updated_ms < ?`;
      let removed = await tx.run(`DELETE FROM judge_steps WHERE trace_id IN (${old})`, [beforeMs]);
      removed += await tx.run(
        `DELETE FROM judge_trajectories WHERE status IN ('judged', 'error', 'dropped') AND updated_ms < ?`,
        [beforeMs],
      );
      return removed;
    });
  }
}
