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
import type { CheckedCall, SourceName, SpanFacts } from '../model.js';
import type { BatchSink, BatchWriter } from '../pipeline/pipeline.js';
import { isFailure } from '../model.js';
import type { StoreRedactor } from '../redact/stored.js';
import type { BatchExtension } from '../store/store.js';
import { maxProbability, samplePosition, type SamplingPolicy } from './sampler.js';
import { callKey, memoRedactor, storedStep, type OfferedTools } from './steps.js';
import type { JudgeStore, TrajectoryWrite } from './store.js';

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
    // A trace's spans mostly come one after another: its position is looked up once per run of them.
    let runId: string | undefined;
    let runList: SpanFacts[] | undefined;
    for (const f of input.facts) {
      if (f.traceId !== runId) {
        runId = f.traceId;
        runList = byTrace.get(runId);
        if (runList === undefined && this.position(runId) < this.threshold) byTrace.set(runId, (runList = []));
      }
      runList?.push(f);
    }
    if (byTrace.size === 0) return [];
    // Only the candidates' calls are looked up (four in five traces are not candidates at the defaults).
    const outcomes = new Map<string, CheckedCall>();
    const failing = new Set<string>();
    for (const c of input.calls) {
      if (!byTrace.has(c.traceId)) continue;
      outcomes.set(callKey(c.spanId, c.callId, c.name), c);
      if (isFailure(c.outcome.outcome)) failing.add(c.traceId);
    }
    const seenMs = this.deps.now();
    const redactor = memoRedactor(this.deps.redactor);
    const writes: TrajectoryWrite[] = [];
    // The batch's distinct offered lists, stored once each beside the steps that refer to them.
    const offered = new Map<string, OfferedTools>();
    for (const [traceId, facts] of byTrace) {
      let first = facts[0]!;
      let endMs = first.endTimeMs;
      const steps: TrajectoryWrite['steps'] = [];
      for (const f of facts) {
        if (f.startTimeMs < first.startTimeMs) first = f;
        if (f.endTimeMs > endMs) endMs = f.endTimeMs;
        const step = storedStep(f, outcomes, redactor, () => seenMs * 1000 + (this.counter++ % 1000));
        if (!step) continue;
        if (step.omitted !== undefined) this.deps.onRedactionFailure?.();
        if (step.offered) offered.set(step.offered.ref, step.offered);
        // Columns hold whole ms (BIGINT); the payload keeps the exact, sub-ms times that order the steps.
        steps.push({
          spanId: f.spanId,
          startMs: Math.floor(f.startTimeMs),
          endMs: Math.ceil(f.endTimeMs),
          kind: step.kind,
          payload: step.payload,
          ...(step.offered ? { offered: step.offered.ref } : {}),
        });
      }
      writes.push({
        traceId,
        service: first.service,
        firstMs: Math.floor(first.startTimeMs),
        endMs: Math.ceil(endMs),
        seenMs,
        hasFailure: failing.has(traceId),
        position: this.position(traceId),
        steps,
        ...(input.writer?.globs ? { writer: input.writer.globs } : {}),
      });
    }
    return [this.deps.store.trajectories.ingestExtension(writes, [...offered.values()])];
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
