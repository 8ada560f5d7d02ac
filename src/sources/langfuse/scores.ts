/**
 * Write-back to Langfuse (`langfuse.write_scores`): each checked call's outcome as a categorical
 * score `tool_call_outcome` on its generation, and judge verdicts (`reached_goal`, …) on their
 * trace, so Langfuse users see them in their own UI and alerts.
 *
 * Scores never block ingestion: outcome scores are put in an outbox in the same transaction as
 * the counts (langfuse-state.ts) and sent by their own job. Every score has a deterministic id —
 * Langfuse upserts by id — so a resend after a lost answer, or after a crash between sending and
 * deleting, updates the same score instead of adding one.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { CheckedCall } from '../../model.js';
import { LangfuseHttpError, type LangfuseApi, type ScoreBody } from './api.js';
import type { LangfuseStateStore, OutboxRow } from './state.js';
import { backoffMs } from './retry.js';

export const OUTCOME_SCORE = 'tool_call_outcome';

const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function scoreId(...parts: string[]): string {
  return `tw-${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32)}`;
}

function outcomeComment(c: CheckedCall): string {
  const o = c.outcome;
  switch (o.outcome) {
    case 'InvalidJson':
      return `${c.name}: ${o.message}`;
    case 'UnknownName':
      return `${c.name}: not among the offered tools`;
    case 'SchemaMismatch':
      return `${c.name}: ${o.errors
        .slice(0, 3)
        .map((e) => `${e.instancePath || '/'} ${e.message}`)
        .join('; ')}`;
    case 'unvalidated':
      return `${c.name}: not checked (${o.reason})`;
    default:
      return c.name;
  }
}

/** A checked call → its categorical outcome score, attached to the generation that proposed it. */
export function outcomeScore(c: CheckedCall): ScoreBody {
  const key = c.callId ? `id:${c.callId}` : `span:${c.spanId}:${c.name}:${c.args.kind === 'none' ? '' : c.args.raw}`;
  return {
    id: scoreId(OUTCOME_SCORE, c.traceId, key),
    traceId: c.traceId,
    observationId: c.spanId,
    name: OUTCOME_SCORE,
    value: c.outcome.outcome,
    dataType: 'CATEGORICAL',
    comment: clip(outcomeComment(c), 500),
    metadata: { tool: c.name, ...(c.callId ? { callId: c.callId } : {}), ...(c.outcome.outcome === 'unvalidated' ? { reason: c.outcome.reason } : {}) },
  };
}

/**
 * What the judge hands over. Kept structural (the judge's own Verdict type can be passed as long as
 * it has these fields): booleans become BOOLEAN scores, numbers NUMERIC, strings CATEGORICAL.
 */
export interface VerdictForLangfuse {
  traceId: string;
  /** Score the trace's root observation instead of the trace, when known. */
  observationId?: string;
  /** Distinguishes re-judgements of the same trace (another run replaces nothing: a new id). */
  runId?: string;
  reachedGoal?: boolean;
  /** Further named verdict values, e.g. {tool_choice_ok: true, steps_wasted: 2}. */
  scores?: Record<string, boolean | number | string>;
  comment?: string;
}

export function verdictScores(v: VerdictForLangfuse): ScoreBody[] {
  const values: [string, boolean | number | string][] = [];
  if (v.reachedGoal !== undefined) values.push(['reached_goal', v.reachedGoal]);
  for (const [k, val] of Object.entries(v.scores ?? {})) if (k !== 'reached_goal' || v.reachedGoal === undefined) values.push([k, val]);
  return values.map(([name, val]) => {
    const body: ScoreBody = {
      id: scoreId('verdict', v.traceId, v.runId ?? '', name),
      traceId: v.traceId,
      name,
      value: typeof val === 'boolean' ? (val ? 1 : 0) : val,
      dataType: typeof val === 'boolean' ? 'BOOLEAN' : typeof val === 'number' ? 'NUMERIC' : 'CATEGORICAL',
      metadata: { source: 'toolwatch-judge' },
    };
    if (v.observationId) body.observationId = v.observationId;
    if (v.comment) body.comment = clip(v.comment, 500);
    return body;
  });
}

export function toOutbox(bodies: readonly ScoreBody[], nowMs: number): OutboxRow[] {
  return bodies.map((b) => ({ id: b.id, body: JSON.stringify(b), attempts: 0, nextMs: nowMs }));
}

export type ScoreStatus = 'sent' | 'retry' | 'rejected' | 'dropped';

export interface ScoreWriterDeps {
  api: LangfuseApi;
  state: LangfuseStateStore;
  clock: () => number;
  log: Pick<Logger, 'warn' | 'debug'>;
  onScore?: (status: ScoreStatus) => void;
  onRequest?: (status: string) => void;
}

export interface ScoreWriterOptions {
  /** Scores sent per flush. */
  batchSize: number;
  /** A score failing this many times (5xx, timeouts) is dropped and counted. */
  maxAttempts: number;
}

export class LangfuseScoreWriter {
  /** Set by a 429: nothing is sent before this (Retry-After). */
  private pausedUntil = 0;

  constructor(
    private readonly deps: ScoreWriterDeps,
    private readonly opts: ScoreWriterOptions,
  ) {}

  /** For the judge: queues its verdict's scores; the next flush sends them. Returns how many. */
  async writeVerdictScores(v: VerdictForLangfuse): Promise<number> {
    const bodies = verdictScores(v);
    await this.deps.state.enqueueScores(toOutbox(bodies, this.deps.clock()));
    return bodies.length;
  }

  /** Sends what is due. Never throws on Langfuse errors: they are counted and retried later. */
  async flush(): Promise<Record<ScoreStatus, number>> {
    const { deps, opts } = this;
    const result: Record<ScoreStatus, number> = { sent: 0, retry: 0, rejected: 0, dropped: 0 };
    const count = (s: ScoreStatus) => {
      result[s]++;
      deps.onScore?.(s);
    };
    const now = deps.clock();
    if (now < this.pausedUntil) return result;
    const due = await deps.state.dueScores(now, opts.batchSize);
    const done: string[] = [];
    for (const row of due) {
      try {
        await deps.api.createScore(JSON.parse(row.body) as ScoreBody);
        deps.onRequest?.('200');
        done.push(row.id);
        count('sent');
      } catch (err) {
        const e = err instanceof LangfuseHttpError ? err : new LangfuseHttpError('network', String(err));
        deps.onRequest?.(String(e.status));
        if (!e.retryable) {
          // 400/401/404…: the same body will be refused again.
          deps.log.warn({ status: e.status, score: row.id }, 'langfuse: score refused; dropped');
          done.push(row.id);
          count('rejected');
          continue;
        }
        const attempts = row.attempts + 1;
        if (attempts >= opts.maxAttempts) {
          done.push(row.id);
          count('dropped');
          continue;
        }
        const wait = e.status === 429 ? (e.retryAfterMs ?? 60_000) : backoffMs(attempts);
        await deps.state.rescheduleScore(row.id, attempts, now + wait);
        count('retry');
        if (e.status === 429) {
          this.pausedUntil = now + wait;
          break;
        }
      }
    }
    if (done.length > 0) await deps.state.deleteScores(done);
    return result;
  }
}

/** Outbox rows for a langfuse batch's checked calls. */
export function outcomeRows(calls: readonly CheckedCall[], nowMs: number): OutboxRow[] {
  return toOutbox(calls.map(outcomeScore), nowMs);
}

/** The judge's recorded verdict (src/judge/types.ts VerdictRecord), structurally: only what becomes scores. */
export interface JudgeVerdictLike {
  traceId: string;
  runId: number | string;
  status: string;
  verdict?: { reached_goal: boolean; unnecessary_calls?: number; dangerous_calls?: number; reasoning?: string };
}

/** A judge verdict record → the scores to write; undefined for judge errors (nothing was judged). */
export function fromJudgeVerdict(rec: JudgeVerdictLike): VerdictForLangfuse | undefined {
  const v = rec.verdict;
  if (rec.status !== 'ok' || !v) return undefined;
  const scores: Record<string, number> = {};
  if (typeof v.unnecessary_calls === 'number') scores['unnecessary_calls'] = v.unnecessary_calls;
  if (typeof v.dangerous_calls === 'number') scores['dangerous_calls'] = v.dangerous_calls;
  return { traceId: rec.traceId, runId: String(rec.runId), reachedGoal: v.reached_goal, scores, ...(v.reasoning ? { comment: v.reasoning } : {}) };
}
