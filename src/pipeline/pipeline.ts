/**
 * One batch at a time: normalize → merge (one call, one count) → check → one durable write →
 * metrics. The write batch is built once, whole: the rows of the calls (under labels derived once
 * per call), the pending-call changes, and the rows sinks and the caller return. Metrics move only
 * after the store committed, under the same labels, so the two always agree, and a batch the store
 * refused leaves no trace (the client's retry is counted in full).
 */
import type { CheckedCall, SourceName, Span, SpanFacts } from '../model.js';
import { isFailure } from '../model.js';
import { classify } from '../check/classify.js';
import type { ToolRegistry } from '../check/registry.js';
import type { SchemaCache } from '../check/schema-cache.js';
import type { Metrics } from '../metrics/registry.js';
import type { LabelCap } from '../metrics/label-cap.js';
import type { Dialects } from '../normalize/registry.js';
import type { BatchExtension, PendingRow, Store, WriteBatch } from '../store/store.js';
import type { Ledger, PendingCall } from './ledger.js';
import { mergeBatch, type CallToCount } from './merge.js';
import { decodePending, encodePending } from './pending-payload.js';
import { buildWrite, callLabels, executionLabels, FailureCap, type CallLabels, type ExecutionLabels } from './write-batch.js';

/** A stage that returns rows for a batch's transaction (the judge's trajectory sampler, for one). */
export interface BatchSink {
  collect(input: { source: SourceName; facts: readonly SpanFacts[]; calls: readonly CheckedCall[] }): readonly BatchExtension[];
}

/**
 * Reads raw spans for what no dialect reads (user feedback attributes) after the batch committed:
 * a key lookup or two per span on the hot path. A tap that fails fails the request; the client's
 * retry counts no call twice (the ledger remembers the batch's spans).
 */
export interface SpanTap {
  take(spans: readonly Span[], source: SourceName): Promise<void> | undefined;
}

/** Persisted pending calls read back at start: how many were put back, and the rows that could not be read. */
export interface RestoreResult {
  restored: number;
  unreadable: { traceId: string; callKey: string; reason: string }[];
}

export interface PipelineDeps {
  /** The dialect readers of this service instance. */
  dialects: Dialects;
  registry: ToolRegistry;
  schemas: SchemaCache;
  ledger: Ledger;
  store: Store;
  metrics: Metrics;
  labels: LabelCap;
  failuresPerToolPerMinute: number;
  /** How long a call known only from its tool span waits for its proposal before it is counted. */
  executionGraceMs: number;
  now: () => number;
  sinks?: BatchSink[];
  taps?: SpanTap[];
  /** Rows kept with the batch's stored failure records (the request context an export needs). */
  failureContext?: (failures: WriteBatch['failures'], facts: readonly SpanFacts[]) => BatchExtension | undefined;
}

export interface IngestSummary {
  spans: number;
  calls: number;
  failures: number;
  executions: number;
  /** Tool-span-only calls held for their grace period. */
  deferred: number;
  duplicateSpans: number;
}

export class Pipeline {
  private readonly failureCap: FailureCap;

  constructor(private readonly deps: PipelineDeps) {
    this.failureCap = new FailureCap(deps.failuresPerToolPerMinute);
  }

  ingestSpans(spans: readonly Span[], source: SourceName = 'otlp'): Promise<IngestSummary> {
    const done = this.ingestFacts(this.deps.dialects.normalizeSpans(spans), source, spans.length);
    const taps = this.deps.taps;
    if (!taps?.length) return done;
    return done.then(async (summary) => {
      for (const tap of taps) await tap.take(spans, source);
      return summary;
    });
  }

  /**
   * `extend` lets a caller add rows to this batch's own transaction from the checked calls (the
   * Langfuse source records the observation ids it took and the score writes it owes, so they
   * commit, or not, together with the counts).
   */
  async ingestFacts(
    facts: readonly SpanFacts[],
    source: SourceName,
    spanCount = facts.length,
    extend?: (calls: readonly CheckedCall[]) => readonly BatchExtension[],
  ): Promise<IngestSummary> {
    const { deps } = this;
    const started = process.hrtime.bigint();
    const now = deps.now();
    const txn = deps.ledger.begin(now);
    const merged = mergeBatch(facts, txn, { source, dueMs: now + deps.executionGraceMs });
    const calls = merged.calls.map((c) => this.check(c, source, now));
    const labels = calls.map((c) => callLabels(c, deps.labels));
    const execLabels = merged.executions.map((e) => executionLabels(e, deps.labels));
    const plan = buildWrite(source, calls, labels, merged.executions, execLabels, this.failureCap, now);
    const context = plan.rows.failures.length ? deps.failureContext?.(plan.rows.failures, facts) : undefined;
    const batch: WriteBatch = {
      ...plan.rows,
      pendingAdd: merged.deferred.map(encodePending),
      pendingRemove: merged.cancelled.map((c) => ({ traceId: c.traceId, callKey: c.key })),
      extensions: [
        ...(deps.sinks ?? []).flatMap((sink) => sink.collect({ source, facts, calls })),
        ...(extend?.(calls) ?? []),
        ...(context ? [context] : []),
      ],
    };

    try {
      await deps.store.write(batch);
    } catch (err) {
      txn.rollback();
      throw err;
    }
    plan.commitCaps();
    deps.metrics.spansReceived.inc({ source }, spanCount);
    this.count(source, calls, labels, execLabels, plan.dropped, merged.duplicateSpans);
    deps.metrics.ingestDuration.observe({ source }, Number(process.hrtime.bigint() - started) / 1e9);
    return {
      spans: spanCount,
      calls: calls.length,
      failures: calls.filter((c) => isFailure(c.outcome.outcome)).length,
      executions: merged.executions.length,
      deferred: merged.deferred.length,
      duplicateSpans: merged.duplicateSpans,
    };
  }

  /**
   * Counts the tool-span-only calls whose grace period ended by nowMs without a proposal. Runs on
   * a timer; on a store error they stay pending and the next run tries again.
   */
  async settle(nowMs = this.deps.now()): Promise<number> {
    const { deps } = this;
    const due = deps.ledger.takeDue(nowMs);
    if (due.length === 0) return 0;
    const bySource = new Map<SourceName, PendingCall[]>();
    for (const p of due) bySource.set(p.source, [...(bySource.get(p.source) ?? []), p]);
    for (const [source, items] of bySource) {
      const calls = items.map((p) => this.check(p.call, source, nowMs));
      const labels = calls.map((c) => callLabels(c, deps.labels));
      const plan = buildWrite(source, calls, labels, [], [], this.failureCap, nowMs);
      const batch: WriteBatch = { ...plan.rows, pendingAdd: [], pendingRemove: items.map((p) => ({ traceId: p.traceId, callKey: p.key })), extensions: [] };
      try {
        await deps.store.write(batch);
      } catch (err) {
        deps.ledger.restore(items, nowMs);
        throw err;
      }
      plan.commitCaps();
      this.count(source, calls, labels, [], plan.dropped, 0);
    }
    return due.length;
  }

  /** Puts back the pending calls a previous process persisted; a row that cannot be read is reported, not counted. */
  restorePending(rows: readonly PendingRow[]): RestoreResult {
    const items: PendingCall[] = [];
    const unreadable: RestoreResult['unreadable'] = [];
    for (const r of rows) {
      const d = decodePending(r);
      if (d.ok) items.push(d.call);
      else unreadable.push({ traceId: r.traceId, callKey: r.callKey, reason: d.reason });
    }
    this.deps.ledger.restore(items, this.deps.now());
    return { restored: items.length, unreadable };
  }

  private check(c: CallToCount, source: SourceName, now: number): CheckedCall {
    const outcome = classify(c, this.deps.registry, this.deps.schemas);
    return {
      source,
      traceId: c.traceId,
      spanId: c.spanId,
      ...(c.callId ? { callId: c.callId } : {}),
      service: c.service,
      model: c.model,
      name: c.name,
      args: c.args,
      timeMs: c.timeMs || now,
      outcome,
      fromExecution: c.fromExecution,
    };
  }

  /** Moves the metrics of a committed batch, under the labels its rows were stored with. */
  private count(
    source: SourceName,
    calls: readonly CheckedCall[],
    labels: readonly CallLabels[],
    execLabels: readonly ExecutionLabels[],
    dropped: number,
    duplicates: number,
  ): void {
    const m = this.deps.metrics;
    for (let i = 0; i < calls.length; i++) {
      const o = calls[i]!.outcome;
      const { service, model, tool } = labels[i]!;
      m.toolCalls.inc({ service, model, tool, outcome: o.outcome, source });
      if (o.outcome === 'unvalidated') m.unvalidated.inc({ service, reason: o.reason });
    }
    for (const l of execLabels) m.toolExecutions.inc(l);
    if (dropped) m.failureRecordsDropped.inc(dropped);
    if (duplicates) m.duplicateSpans.inc(duplicates);
  }
}
