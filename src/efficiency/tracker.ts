/**
 * Per trajectory (a trace), while it is in flight: model steps, tool calls, failed calls, tokens and
 * wall time — for every trace, not only the judge's sample. A trace is complete when nothing of it
 * arrived for `idle` (spans, and calls or executions counted after their grace period); only traces
 * with at least one tool call become a trajectory.
 *
 * Bounded: at most `maxTraces` traces in memory, least recently touched completed first — a trace
 * pushed out before it went idle (more traces in flight than the bound) is observed as it stood, and
 * its later spans start a new trajectory; so does anything of a trace that arrives after its
 * trajectory was observed. Kept apart from the dedupe ledger: that one remembers only traces with
 * tool-bearing spans, for an hour; this one also counts the model steps without a call (the final
 * answer) and lets a trace go after a minute.
 *
 * Counting rules:
 * - a model step is a span read as a model request; a model span directly inside another one (an
 *   instrumentation wrapping another: LangChain over the OpenAI SDK, LiveKit's llm_request inside its
 *   llm_node) is the same step, and its tokens are counted once (the first of the two that reported
 *   any); a span seen again (a resent batch) is not counted again;
 * - tool calls are the calls counted (each once, as in toolwatch_tool_calls_total);
 * - failed calls are the calls that failed their structural check, plus those whose execution failed
 *   (any status but ok) without a structural failure — each call once;
 * - tokens are input + output tokens of the steps; a trajectory none of whose steps reported tokens
 *   has none (left out of the token statistics);
 * - wall time is the first start to the last end of its spans read by a dialect reader.
 * The trajectory's model is the one most of its steps used (the first of them on a tie), else the
 * model most of its calls came from.
 */
import { isFailure, type CheckedCall, type SpanFacts } from '../model.js';
import type { ReleasedExecution } from '../pipeline/executions.js';

export interface TrajectoryOptions {
  idleMs: number;
  maxTraces: number;
}

export interface CompletedTrajectory {
  traceId: string;
  /** The service label of its calls. */
  service: string;
  /** Its model, as the model label of the calls (capped), '' when none was reported. */
  model: string;
  /** The end of its last span (ms): the minute it is stored under. */
  endMs: number;
  steps: number;
  toolCalls: number;
  failedCalls: number;
  /** null when no step reported tokens. */
  tokens: number | null;
  durationMs: number;
}

/**
 * Counts per model, first seen first: the first model in fields of its own (nearly every trajectory
 * uses one), the others in a flat [model, count, …] array made only when a second model appears.
 */
interface ModelCounts {
  first: string | undefined;
  n: number;
  rest: (string | number)[] | undefined;
}

interface InFlight {
  traceId: string;
  service: string | undefined;
  /** Of its model steps. */
  stepModels: ModelCounts;
  /** Of its calls (model labels). */
  callModels: ModelCounts;
  firstMs: number;
  lastMs: number;
  touchedMs: number;
  steps: number;
  calls: number;
  failed: number;
  tokens: number;
  hasTokens: boolean;
  /** [span id hash, parent id hash (-1 for none), 1 if its tokens were counted else 0, …] of its model spans. */
  stepIds: number[] | undefined;
}

/** 28 bits of a hex span id: a small integer, so the ids of a trace cost no object each. */
function idHash(spanId: string): number {
  const h = Number.parseInt(spanId.slice(-7), 16);
  return Number.isFinite(h) ? h : -2;
}

function bump(c: ModelCounts, key: string): void {
  if (c.first === undefined || c.first === key) {
    c.first = key;
    c.n++;
    return;
  }
  const rest = (c.rest ??= []);
  for (let i = 0; i < rest.length; i += 2) {
    if (rest[i] === key) {
      (rest[i + 1] as number)++;
      return;
    }
  }
  rest.push(key, 1);
}

/** The model counted most often (the first seen on a tie). */
function most(c: ModelCounts): string | undefined {
  let best = c.first;
  let n = c.n;
  const rest = c.rest ?? [];
  for (let i = 0; i < rest.length; i += 2) {
    if ((rest[i + 1] as number) > n) {
      best = rest[i] as string;
      n = rest[i + 1] as number;
    }
  }
  return best;
}

export class TrajectoryTracker {
  private readonly traces = new Map<string, InFlight>();
  /** Pushed out by the bound before going idle: handed out with the next idle ones. */
  private evicted: CompletedTrajectory[] = [];
  private newest: string | undefined;

  constructor(
    private readonly opts: TrajectoryOptions,
    /** The model label a step's model is counted under (the calls' label cap). */
    private readonly modelLabel: (model: string) => string,
  ) {}

  get size(): number {
    return this.traces.size;
  }

  /** A committed batch's spans: model steps, tokens, the trace's time range. */
  spans(facts: readonly SpanFacts[], nowMs: number): void {
    // A batch holds a trace's spans mostly side by side: one lookup per run of them.
    let t: InFlight | undefined;
    for (const f of facts) {
      if (f.role !== 'model' && !f.execution && f.proposals.length === 0 && f.role !== 'agent') continue;
      if (t === undefined || t.traceId !== f.traceId) t = this.trace(f.traceId, nowMs);
      if (f.startTimeMs && f.startTimeMs < t.firstMs) t.firstMs = f.startTimeMs;
      if (f.endTimeMs > t.lastMs) t.lastMs = f.endTimeMs;
      if (f.role === 'model') this.step(t, f);
    }
  }

  /** Calls counted (each once), with their labels. */
  calls(calls: readonly CheckedCall[], labels: readonly { service: string; model: string }[], nowMs: number): void {
    let t: InFlight | undefined;
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i]!;
      const l = labels[i]!;
      if (t === undefined || t.traceId !== c.traceId) t = this.trace(c.traceId, nowMs);
      t.service ??= l.service;
      t.calls++;
      bump(t.callModels, l.model);
      if (isFailure(c.outcome.outcome)) t.failed++;
    }
  }

  /** Executions counted: a failed one adds a failed call unless its call already failed its check. */
  executions(items: readonly ReleasedExecution[], nowMs: number): void {
    for (const e of items) {
      if (e.status === 'ok') continue;
      const o = e.callOutcome;
      if (o === 'InvalidJson' || o === 'UnknownName' || o === 'SchemaMismatch') continue;
      this.trace(e.traceId, nowMs).failed++;
    }
  }

  /**
   * Removes and returns the trajectories complete at nowMs (idle for `idle`), and those the bound
   * pushed out since the last call; `all`: every trace in flight (shutdown). Traces without a call
   * are dropped, not returned.
   */
  takeIdle(nowMs: number, all = false): CompletedTrajectory[] {
    const out = this.evicted;
    this.evicted = [];
    for (const [id, t] of this.traces) {
      if (!all && nowMs - t.touchedMs < this.opts.idleMs) break;
      this.traces.delete(id);
      const done = this.complete(t);
      if (done) out.push(done);
    }
    if (this.newest !== undefined && !this.traces.has(this.newest)) this.newest = undefined;
    return out;
  }

  /** Puts completed trajectories back after their write failed (at most maxTraces wait; older ones are dropped). */
  restore(items: readonly CompletedTrajectory[]): void {
    this.evicted = [...items, ...this.evicted].slice(-this.opts.maxTraces);
  }

  private step(t: InFlight, f: SpanFacts): void {
    const id = idHash(f.spanId);
    const parent = f.parentSpanId ? idHash(f.parentSpanId) : -1;
    let nested = false;
    let tokensNearby = false;
    const ids = (t.stepIds ??= []);
    for (let i = 0; i < ids.length; i += 3) {
      if (ids[i] === id) return; // seen before (a resent batch)
      if (ids[i] === parent || ids[i + 1] === id) {
        nested = true;
        if (ids[i + 2] === 1) tokensNearby = true;
      }
    }
    const tokens = (f.inputTokens ?? 0) + (f.outputTokens ?? 0);
    const reported = f.inputTokens !== undefined || f.outputTokens !== undefined;
    const countTokens = reported && !tokensNearby;
    ids.push(id, parent, countTokens ? 1 : 0);
    if (countTokens) {
      t.tokens += tokens;
      t.hasTokens = true;
    }
    if (nested) return;
    t.steps++;
    bump(t.stepModels, f.model ?? '');
  }

  private complete(t: InFlight): CompletedTrajectory | undefined {
    if (t.calls === 0 || t.service === undefined) return undefined;
    const stepModel = most(t.stepModels);
    const model = stepModel !== undefined && stepModel !== '' ? this.modelLabel(stepModel) : (most(t.callModels) ?? '');
    return {
      traceId: t.traceId,
      service: t.service,
      model,
      endMs: t.lastMs || t.touchedMs,
      steps: t.steps,
      toolCalls: t.calls,
      failedCalls: t.failed,
      tokens: t.hasTokens ? t.tokens : null,
      durationMs: t.lastMs > 0 && t.firstMs < Number.POSITIVE_INFINITY ? Math.max(0, t.lastMs - t.firstMs) : 0,
    };
  }

  private trace(traceId: string, nowMs: number): InFlight {
    let t = this.traces.get(traceId);
    if (t) {
      // Map order is recency order: move to the back unless it is there already.
      if (this.newest !== traceId) {
        this.traces.delete(traceId);
        this.traces.set(traceId, t);
        this.newest = traceId;
      }
      // Calls and executions counted after their grace period touch the trace as of when they were due.
      if (nowMs > t.touchedMs) t.touchedMs = nowMs;
      return t;
    }
    t = {
      traceId,
      service: undefined,
      stepModels: { first: undefined, n: 0, rest: undefined },
      callModels: { first: undefined, n: 0, rest: undefined },
      firstMs: Number.POSITIVE_INFINITY,
      lastMs: 0,
      touchedMs: nowMs,
      steps: 0,
      calls: 0,
      failed: 0,
      tokens: 0,
      hasTokens: false,
      stepIds: undefined,
    };
    this.traces.set(traceId, t);
    this.newest = traceId;
    while (this.traces.size > this.opts.maxTraces) {
      const [oldId, old] = this.traces.entries().next().value!;
      this.traces.delete(oldId);
      const done = this.complete(old);
      if (done) this.evicted.push(done);
    }
    return t;
  }
}
