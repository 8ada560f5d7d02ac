/**
 * What a committed batch moves besides its rows: the call metrics (under the labels the rows were
 * stored with), the coverage report, the latency and trajectory histograms' children (bound once
 * per label set), and the `ingest batch` span's attributes. Apart from pipeline.ts so the per-batch
 * flow reads as one flow; the settle path (settle.ts) moves the same metrics through this.
 */
import type { CheckedCall, SourceName } from '../model.js';
import { isFailure, OUTCOMES, type OutcomeName } from '../model.js';
import type { Metrics } from '../metrics/registry.js';
import { OTHER } from '../metrics/label-cap.js';
import type { CoverageTracker } from '../instrumentation/coverage.js';
import type { BatchCoverage } from '../instrumentation/batch-coverage.js';
import type { CallEntry } from './ledger.js';
import type { CountedAs } from './ledger-journal.js';
import { type CallLabels, peekLabel, scopeLabel } from './call-labels.js';
import type { WritePlan } from './write-batch.js';
import type { IngestSummary, PipelineDeps } from './ports.js';

type Observer = { observe(v: number): void };
export type TrajectoryHistograms = Record<'toolCalls' | 'steps' | 'failedCalls' | 'duration' | 'tokens', Observer>;

export class BatchMetrics {
  private readonly durations = new Map<string, Observer>();
  private readonly trajectoryChildren = new Map<string, TrajectoryHistograms>();
  private lastService: string | undefined;
  private lastTool: string | undefined;
  private lastDuration: Observer | undefined;

  constructor(private readonly deps: PipelineDeps) {}

  /**
   * A committed batch's spans (as BatchCoverage read them) into the coverage report; LLM-looking spans
   * no reader knew, per scope, into the metric.
   */
  observeSpans(coverage: CoverageTracker, seen: BatchCoverage, budget: string | undefined): void {
    coverage.observeBatch(seen, budget);
    const unrecognized = seen.unrecognizedByScope();
    if (!unrecognized) return;
    const { metrics, labels } = this.deps;
    for (const [scope, n] of unrecognized)
      metrics.spansUnrecognized.inc({ scope: scopeLabel(scope, labels, budget) }, n);
  }

  /** observeSpans for a batch once it committed (a closure holding what BatchCoverage read, not the spans). */
  spansSeen(coverage: CoverageTracker, seen: BatchCoverage, budget: string | undefined): () => void {
    return () => this.observeSpans(coverage, seen, budget);
  }

  /** The latency histogram's child for a stored service and tool (their labels: capped), bound once (metrics/bound-histogram.ts). */
  durationOf(service: string, tool: string): Observer {
    // A settle round releases executions in runs of one service and tool: the last answer first.
    // Kept only for names the cap admitted (an admitted name stays admitted; `_other` may not).
    if (service === this.lastService && tool === this.lastTool) return this.lastDuration!;
    const cap = this.deps.labels;
    const labels = { service: peekLabel(cap, 'service', service), tool: peekLabel(cap, 'tool', tool) };
    const key = `${labels.service}\u0000${labels.tool}`;
    let child = this.durations.get(key);
    if (!child) this.durations.set(key, (child = this.deps.metrics.toolExecutionDuration.bind(labels)));
    const admitted = labels.service === service && labels.tool === tool && service !== OTHER && tool !== OTHER;
    this.lastService = admitted ? service : undefined;
    this.lastTool = admitted ? tool : undefined;
    this.lastDuration = child;
    return child;
  }

  /** The trajectory histograms' children of a service (bound once, like durationOf). */
  trajectoryHistograms(service: string, m: Metrics): TrajectoryHistograms {
    let c = this.trajectoryChildren.get(service);
    if (!c) {
      const l = { service };
      c = {
        toolCalls: m.trajectoryToolCalls.bind(l),
        steps: m.trajectorySteps.bind(l),
        failedCalls: m.trajectoryFailedCalls.bind(l),
        duration: m.trajectoryDuration.bind(l),
        tokens: m.trajectoryTokens.bind(l),
      };
      this.trajectoryChildren.set(service, c);
    }
    return c;
  }

  /**
   * Moves the metrics of a committed batch, under the labels its rows were stored with, and tells each
   * call's ledger entry its outcome and model (what its execution is counted with).
   */
  count(
    source: SourceName,
    calls: readonly CheckedCall[],
    labels: readonly CallLabels[],
    entries: readonly (CallEntry | undefined)[],
    plan: Pick<WritePlan, 'dropped' | 'redactionFailures'>,
    duplicates: number,
    nowMs: number,
    budgetOf: (i: number) => string | undefined,
  ): void {
    const m = this.deps.metrics;
    // Summed per label set, then one inc each, in the order the sets first appear (so a new series
    // takes its place in the exposition as a call-by-call inc would put it): a batch's calls share a
    // few label sets, and prom-client hashes and validates the labels on every inc.
    const sums = new LabelSums();
    for (let i = 0; i < calls.length; i++) {
      const o = calls[i]!.outcome;
      const { service, model, tool } = labels[i]!.metric;
      sums.add(m.toolCalls, service, model, tool, o.outcome, source);
      if (o.outcome === 'unvalidated') sums.add(m.unvalidated, service, o.reason);
      else if (o.outcome === 'InvalidJson') sums.add(m.invalidJson, service, o.cause);
      const entry = entries[i];
      if (entry) {
        entry.outcome = o.outcome;
        // Its execution's stored row takes the call's stored model.
        entry.model = labels[i]!.model;
        this.deps.ledger.counted(entry);
      }
    }
    sums.inc();
    this.deps.trajectories?.calls(calls, labels, nowMs);
    const coverage = this.deps.coverage;
    if (coverage) {
      // Calls read from a span, wherever they were counted (a held call settled later keeps its scope).
      for (let i = 0; i < calls.length; i++) {
        const c = calls[i]!;
        if (c.scope === undefined) continue;
        const origin = { scope: c.scope, scopeVersion: c.scopeVersion ?? '', service: c.service };
        coverage.observeCall(origin, c.outcome, budgetOf(i));
      }
    }
    if (plan.dropped) m.failureRecordsDropped.inc(plan.dropped);
    for (const [what, n] of Object.entries(plan.redactionFailures)) if (n) m.redactionFailures.inc({ what }, n);
    if (duplicates) m.duplicateSpans.inc(duplicates);
  }
}

type Counter = { inc(labels: never, n: number): void };

/** A label set's count in one batch and the counter it goes to: the values in the counter's label order. */
interface LabelSum {
  counter: Counter;
  a: string;
  b: string;
  c: string | undefined;
  d: string | undefined;
  e: string | undefined;
  n: number;
}

/**
 * One batch's counts per counter and label set. A batch holds a few sets: found by comparing their
 * values (no key string built and hashed per call), past SCAN_LIMIT sets through a map as well.
 */
class LabelSums {
  private readonly sums: LabelSum[] = [];
  private byKey: Map<string, LabelSum> | undefined;

  /** One call of `counter` under (service, model, tool, outcome, source), or (service, reason) for two-label counters. */
  add(counter: Counter, a: string, b: string, c?: string, d?: string, e?: string): void {
    const sums = this.sums;
    if (this.byKey === undefined) {
      for (let i = 0; i < sums.length; i++) {
        const x = sums[i]!;
        if (x.counter === counter && x.a === a && x.b === b && x.c === c && x.d === d && x.e === e) {
          x.n++;
          return;
        }
      }
      sums.push({ counter, a, b, c, d, e, n: 1 });
      if (sums.length >= SCAN_LIMIT) {
        this.byKey = new Map();
        for (const x of sums) this.byKey.set(keyOf(x.counter, x.a, x.b, x.c, x.d, x.e), x);
      }
      return;
    }
    const k = keyOf(counter, a, b, c, d, e);
    const had = this.byKey.get(k);
    if (had) had.n++;
    else {
      const x = { counter, a, b, c, d, e, n: 1 };
      sums.push(x);
      this.byKey.set(k, x);
    }
  }

  /** Each set's sum into its counter, in the order the sets first appeared. */
  inc(): void {
    for (const x of this.sums) {
      const labels =
        x.c === undefined
          ? { service: x.a, reason: x.b }
          : { service: x.a, model: x.b, tool: x.c, outcome: x.d, source: x.e };
      x.counter.inc(labels as never, x.n);
    }
  }
}

/** Label sets compared one by one up to this many in a batch. */
const SCAN_LIMIT = 32;

/** Counters are told apart by their first call's object: a number per counter seen. */
const counterIds = new WeakMap<Counter, number>();
function keyOf(counter: Counter, a: string, b: string, c?: string, d?: string, e?: string): string {
  let id = counterIds.get(counter);
  if (id === undefined) counterIds.set(counter, (id = nextCounterId++));
  return `${id}\u0000${a}\u0000${b}\u0000${c ?? ''}\u0000${d ?? ''}\u0000${e ?? ''}`;
}
let nextCounterId = 0;

/** The outcome and model label each call of a batch is counted with, by its ledger entry (for the journal). */
export function countedAs(
  entries: readonly CallEntry[],
  calls: readonly CheckedCall[],
  labels: readonly CallLabels[],
): CountedAs {
  const index = new Map<CallEntry, number>();
  for (let i = 0; i < entries.length; i++) index.set(entries[i]!, i);
  return (e) => {
    const i = index.get(e);
    return i === undefined ? undefined : [calls[i]!.outcome.outcome, labels[i]!.model];
  };
}

/** The `ingest batch` span's attributes (README, Self-telemetry): sizes and the calls by outcome. */
export function batchAttributes(
  source: SourceName,
  s: IngestSummary,
  calls: readonly CheckedCall[],
): Record<string, string | number> {
  const byOutcome = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<OutcomeName, number>;
  for (const c of calls) byOutcome[c.outcome.outcome]++;
  const attrs: Record<string, string | number> = {
    'toolwatch.source': source,
    'toolwatch.spans': s.spans,
    'toolwatch.calls': s.calls,
    'toolwatch.failures': s.failures,
    'toolwatch.executions': s.executions,
    'toolwatch.deferred_calls': s.deferred,
    'toolwatch.duplicate_spans': s.duplicateSpans,
  };
  for (const o of OUTCOMES) attrs[`toolwatch.calls.${o}`] = byOutcome[o];
  return attrs;
}

/** The failed calls of a batch (its summary). */
export function failuresIn(calls: readonly CheckedCall[]): number {
  let n = 0;
  for (const c of calls) if (isFailure(c.outcome.outcome)) n++;
  return n;
}
