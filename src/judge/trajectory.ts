/**
 * The trajectory collector: a BatchSink that keeps the steps of candidate traces in the same
 * transaction as the batch's counts.
 *
 * Spans of one trace arrive over many batches, and whether a trace is sampled can change as they
 * come: a later span may carry the first structural failure (so `failed_rate` applies). We therefore decide in two stages:
 *  1. at ingest, a trace whose position u is at or above the highest rate any trajectory can get
 *     (`maxProbability`) is skipped — the bulk of traffic, at the cost of one hash;
 *  2. below it the trace is a candidate: its steps are stored, and once it is complete (no span
 *     for `judge.idle`) the job computes its real inclusion probability from its service and
 *     failure flag; unsampled candidates are then dropped (their steps deleted).
 * A trajectory's service is that of the earliest span of the batch that first stored it, and stays:
 * a span of a restricted sender joins only a trajectory whose service it may write (store.ts).
 * So storage is bounded by max(rate) of traffic for `idle` plus the sample, and a failure in the
 * last span still gets the whole trajectory. Spans arriving after a trajectory completed are not
 * added to it.
 */
import type { CheckedCall, SourceName, SpanFacts, ToolDef } from '../model.js';
import type { BatchSink, BatchWriter } from '../pipeline/pipeline.js';
import { isFailure } from '../model.js';
import type { Redacted, StoreRedactor } from '../redact/stored.js';
import type { BatchExtension } from '../store/store.js';
import { maxProbability, samplePosition, type SamplingPolicy } from './sampler.js';
import type { JudgeStore, TrajectoryWrite } from './store.js';
import type { ModelStep, Step, StepCall, ToolStep } from './types.js';

// Bounds per stored field: a trajectory must stay small enough to send to a judge.
const MAX_TEXT = 16 * 1024;
const MAX_ARGS = 16 * 1024;
const MAX_SCHEMA = 8 * 1024;
const MAX_TOOLS = 64;

const clip = (s: string, n: number): string => {
  const cut = s.length > n ? `${s.slice(0, n)}…[truncated ${s.length - n} chars]` : s;
  return cut.includes('\u0000') ? cut.replaceAll('\u0000', '\uFFFD') : cut; // PostgreSQL TEXT refuses NUL
};

export interface TrajectorySinkDeps {
  project: string;
  policy: SamplingPolicy;
  store: JudgeStore;
  now: () => number;
  /** Masks every free-text field of a step before it is stored (store.redact_arguments). */
  redactor: StoreRedactor;
  /** Called once per step a field of which could not be redacted (and was left out). */
  onRedactionFailure?: () => void;
}

export class TrajectorySink implements BatchSink {
  private readonly threshold: number;
  private readonly positions = new Map<string, number>();
  private counter = 0;

  constructor(private readonly deps: TrajectorySinkDeps) {
    this.threshold = maxProbability(deps.policy);
  }

  collect(input: {
    source: SourceName;
    facts: readonly SpanFacts[];
    calls: readonly CheckedCall[];
    writer?: BatchWriter | undefined;
  }): readonly BatchExtension[] {
    if (this.threshold <= 0) return [];
    const byTrace = new Map<string, SpanFacts[]>();
    for (const f of input.facts) {
      if (this.position(f.traceId) >= this.threshold) continue;
      const list = byTrace.get(f.traceId);
      if (list) list.push(f);
      else byTrace.set(f.traceId, [f]);
    }
    if (byTrace.size === 0) return [];
    const outcomes = new Map<string, CheckedCall>();
    for (const c of input.calls) outcomes.set(callKey(c.spanId, c.callId, c.name), c);
    const seenMs = this.deps.now();
    const redactor = memoRedactor(this.deps.redactor);
    const writes: TrajectoryWrite[] = [];
    for (const [traceId, facts] of byTrace) {
      const first = facts.reduce((a, b) => (b.startTimeMs < a.startTimeMs ? b : a));
      const hasFailure = input.calls.some((c) => c.traceId === traceId && isFailure(c.outcome.outcome));
      const steps = facts.flatMap((f) => {
        const raw = toStep(f, outcomes);
        const step = raw && redactStep(raw, redactor);
        if (step?.omitted) this.deps.onRedactionFailure?.();
        if (step) step.seq = seenMs * 1000 + (this.counter++ % 1000);
        // Columns hold whole ms (BIGINT); the payload keeps the exact, sub-ms times that order the steps.
        return step
          ? [
              {
                spanId: f.spanId,
                startMs: Math.floor(f.startTimeMs),
                endMs: Math.ceil(f.endTimeMs),
                kind: step.kind,
                payload: JSON.stringify(step),
              },
            ]
          : [];
      });
      writes.push({
        traceId,
        service: first.service,
        firstMs: Math.floor(first.startTimeMs),
        endMs: Math.ceil(Math.max(...facts.map((f) => f.endTimeMs))),
        seenMs,
        hasFailure,
        position: this.position(traceId),
        steps,
        ...(input.writer?.globs ? { writer: input.writer.globs } : {}),
      });
    }
    return [this.deps.store.trajectories.ingestExtension(writes)];
  }

  /** Memoised for the traces of recent batches (a trace's spans come in several). */
  private position(traceId: string): number {
    let u = this.positions.get(traceId);
    if (u === undefined) {
      u = samplePosition(this.deps.project, traceId);
      if (this.positions.size >= 10_000) this.positions.clear();
      this.positions.set(traceId, u);
    }
    return u;
  }
}

const callKey = (spanId: string, callId: string | undefined, name: string): string =>
  `${spanId}\u0000${callId ?? `name:${name}`}`;

/** One span's facts as a stored step; agent/other spans only widen the trajectory's time range. */
export function toStep(f: SpanFacts, outcomes: ReadonlyMap<string, CheckedCall>): Step | undefined {
  if (f.execution) {
    const e = f.execution;
    const counted = outcomes.get(callKey(f.spanId, e.callId, e.name));
    const status = e.status === 'ok' ? 'ok' : 'error';
    const s: ToolStep = {
      kind: 'tool',
      spanId: f.spanId,
      startMs: f.startTimeMs,
      endMs: f.endTimeMs,
      name: e.name,
      status,
    };
    if (e.callId) s.callId = e.callId;
    if (e.args.kind !== 'none') s.arguments = clip(e.args.raw, MAX_ARGS);
    // The step keeps ok/error; how it failed (client_error, server_error) goes with the error's text.
    const how = e.status === 'client_error' || e.status === 'server_error' ? e.status : undefined;
    const what = e.errorType ?? how;
    if (what) s.errorType = clip(how && e.errorType ? `${how}: ${e.errorType}` : what, 1000);
    if (e.result !== undefined) s.result = clip(e.result, MAX_TEXT);
    if (counted) s.outcome = counted.outcome.outcome;
    return s;
  }
  if (f.role !== 'model') return undefined;
  const s: ModelStep = {
    kind: 'model',
    spanId: f.spanId,
    startMs: f.startTimeMs,
    endMs: f.endTimeMs,
    calls: f.proposals.map((p) => toCall(f.spanId, p, outcomes)),
  };
  if (f.model) s.model = f.model;
  if (f.userMessage) s.userMessage = clip(f.userMessage, MAX_TEXT);
  if (f.outputText) s.outputText = clip(f.outputText, MAX_TEXT);
  if (f.error) s.error = clip(f.error, 1000);
  if (f.inputTokens !== undefined) s.inputTokens = f.inputTokens;
  if (f.outputTokens !== undefined) s.outputTokens = f.outputTokens;
  if (f.offered) s.offered = offeredAsStored(f.offered);
  return s;
}

/**
 * The offered tools as a step stores them. The readers share one frozen definition object per tool
 * of a distinct definitions string (src/tools/tooldefs.ts) and every model span of a service offers
 * the same ones, so each is clipped and its schema measured once, not on every step.
 */
const storedDefs = new WeakMap<ToolDef, ToolDef>();

function offeredAsStored(offered: readonly ToolDef[]): ToolDef[] {
  return offered.slice(0, MAX_TOOLS).map((t) => {
    if (!Object.isFrozen(t)) return toolDef(t);
    let d = storedDefs.get(t);
    if (!d) storedDefs.set(t, (d = toolDef(t)));
    return d;
  });
}

/**
 * The store's redactor with what it answered kept for one batch: a call's arguments come twice (the
 * model's proposal and the tool span), a trace's user message on each of its model spans. The
 * redactor is a pure function of the value, so the answer is the same; nothing outlives the batch.
 */
function memoRedactor(r: StoreRedactor): StoreRedactor {
  if (r.level === 'none') return r;
  const json = new Map<string, Redacted>();
  const text = new Map<string, Redacted>();
  const memo = (cache: Map<string, Redacted>, fn: (v: string) => Redacted) => (v: string) => {
    let got = cache.get(v);
    if (!got) cache.set(v, (got = fn(v)));
    return got;
  };
  return { level: r.level, json: memo(json, (v) => r.json(v)), text: memo(text, (v) => r.text(v)) };
}

function toCall(
  spanId: string,
  p: SpanFacts['proposals'][number],
  outcomes: ReadonlyMap<string, CheckedCall>,
): StepCall {
  const c: StepCall = { name: clip(p.name, 500) };
  if (p.callId) c.callId = p.callId;
  if (p.args.kind !== 'none') c.arguments = clip(p.args.raw, MAX_ARGS);
  const counted = outcomes.get(callKey(spanId, p.callId, p.name));
  if (counted) c.outcome = counted.outcome.outcome;
  return c;
}

function toolDef(t: ToolDef): ToolDef {
  const d: ToolDef = { name: clip(t.name, 500) };
  if (t.description) d.description = clip(t.description, 2000);
  if (t.parameters !== undefined) {
    const text = JSON.stringify(t.parameters);
    d.parameters = text.length <= MAX_SCHEMA ? t.parameters : { note: `schema omitted: ${text.length} chars` };
  }
  return d;
}

/**
 * A step as stored: every free-text field through the store's redactor (arguments as JSON, so they
 * stay JSON). A field the redactor cannot handle is left out and the step says which and why
 * (`omitted`, `argumentsOmitted` on a call). Names, tokens, times and offered schemas are kept as they are.
 */
export function redactStep(step: Step, r: StoreRedactor): Step {
  if (r.level === 'none') return step;
  const out: Record<string, unknown> = { ...step };
  const reasons: string[] = [];
  const mask = (field: string, value: string | undefined, how: 'json' | 'text') => {
    if (value === undefined) return;
    const m = how === 'json' ? r.json(value) : r.text(value);
    if (m.ok) out[field] = m.value;
    else {
      delete out[field];
      reasons.push(`${field}: ${m.reason}`);
    }
  };
  if (step.kind === 'model') {
    mask('userMessage', step.userMessage, 'text');
    mask('outputText', step.outputText, 'text');
    mask('error', step.error, 'text');
    out.calls = step.calls.map((c) => {
      if (c.arguments === undefined) return c;
      const m = r.json(c.arguments);
      if (m.ok) return { ...c, arguments: m.value };
      reasons.push(`calls[${c.name}].arguments: ${m.reason}`);
      const { arguments: _dropped, ...rest } = c;
      return { ...rest, argumentsOmitted: m.reason };
    });
  } else {
    mask('arguments', step.arguments, 'json');
    mask('result', step.result, 'json');
    mask('errorType', step.errorType, 'text');
  }
  if (reasons.length) out.omitted = reasons.join('; ');
  return out as unknown as Step;
}
