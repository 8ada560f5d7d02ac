/**
 * One batch at a time: normalize → merge (one call, one count) → check → one durable write →
 * metrics. Metrics move only after the store committed, so the two always agree, and a batch
 * the store refused leaves no trace (the client's retry is counted in full).
 */
import { createHash } from 'node:crypto';
import type { CheckedCall, SourceName, Span, SpanFacts } from '../model.js';
import { isFailure } from '../model.js';
import { classify } from '../check/classify.js';
import type { ToolRegistry } from '../check/registry.js';
import type { SchemaCache } from '../check/schema-cache.js';
import type { Metrics } from '../metrics/registry.js';
import type { LabelCap } from '../metrics/label-cap.js';
import { normalizeSpans } from '../normalize/registry.js';
import type { BatchExtension, PendingRow, Store, WriteBatch } from '../store/store.js';
import type { Ledger, PendingCall } from './ledger.js';
import { mergeBatch, unsettledOwners, type CallToCount, type ExecutionToRecord } from './merge.js';
import { buildWrite, FailureCap, UNKNOWN_TOOL } from './write-batch.js';
import { storableText } from '../store/storable-text.js';
import type { WriteHealth } from '../store/write-health.js';

/** A stage that adds its own rows to a batch's write (the judge's trajectory sampler, for one). */
export interface BatchSink {
  collect(input: { source: SourceName; facts: readonly SpanFacts[]; calls: readonly CheckedCall[]; batch: WriteBatch }): void;
}

export interface PipelineDeps {
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
  /** Told every write's outcome (readiness). */
  writeHealth?: WriteHealth;
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

/** The batch was skipped before anything was recorded: its client had gone. */
export class BatchCancelled extends Error {
  constructor() {
    super('the client went away before the batch was recorded');
    this.name = 'BatchCancelled';
  }
}

export class Pipeline {
  private readonly failureCap: FailureCap;

  constructor(private readonly deps: PipelineDeps) {
    this.failureCap = new FailureCap(deps.failuresPerToolPerMinute);
  }

  /**
   * `cancelled` is asked once nothing is recorded yet and the batch would be written now (after any
   * wait for an unsettled original): true skips the batch (BatchCancelled) — its client went away
   * and will resend.
   */
  ingestSpans(spans: readonly Span[], source: SourceName = 'otlp', cancelled?: () => boolean): Promise<IngestSummary> {
    return this.ingestFacts(normalizeSpans(spans), source, spans.length, undefined, cancelled);
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
    cancelled?: () => boolean,
  ): Promise<IngestSummary> {
    const { deps } = this;
    const started = process.hrtime.bigint();
    // A batch that shares spans or calls with one still being written waits for that one's outcome.
    for (let waits = unsettledOwners(facts, deps.ledger); waits.length > 0; waits = unsettledOwners(facts, deps.ledger)) {
      await Promise.all(waits);
    }
    if (cancelled?.()) throw new BatchCancelled();
    // From here to the store write nothing awaits: no other batch can take these spans meanwhile.
    const now = deps.now();
    const txn = deps.ledger.begin(now);
    let merged: ReturnType<typeof mergeBatch>;
    let calls: CheckedCall[];
    let plan: ReturnType<typeof buildWrite>;
    try {
      merged = mergeBatch(facts, txn, { source, dueMs: now + deps.executionGraceMs });
      calls = merged.calls.map((c) => this.check(c, source, now));
      plan = buildWrite(source, calls, merged.executions, this.failureCap, now);
      plan.batch.pendingAdd = merged.deferred.map(toRow);
      plan.batch.pendingRemove = merged.cancelled.map((c) => pendingKey(c.traceId, c.key));
      for (const sink of deps.sinks ?? []) sink.collect({ source, facts, calls, batch: plan.batch });
      if (extend) plan.batch.extensions.push(...extend(calls));
      await deps.store.write(plan.batch);
    } catch (err) {
      // Whatever failed, the batch is settled: batches waiting on its spans go on.
      txn.rollback();
      deps.writeHealth?.failed(err);
      throw err;
    }
    txn.commit();
    deps.writeHealth?.succeeded();
    plan.commitCaps();
    deps.metrics.spansReceived.inc({ source }, spanCount);
    this.count(source, calls, merged.executions, plan.dropped, merged.duplicateSpans);
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
      const plan = buildWrite(source, calls, [], this.failureCap, nowMs);
      plan.batch.pendingRemove = items.map((p) => pendingKey(p.traceId, p.key));
      try {
        await deps.store.write(plan.batch);
      } catch (err) {
        deps.ledger.restore(items, nowMs);
        deps.writeHealth?.failed(err);
        throw err;
      }
      deps.writeHealth?.succeeded();
      plan.commitCaps();
      this.count(source, calls, [], plan.dropped, 0);
    }
    return due.length;
  }

  /** Puts back the pending calls a previous process persisted. */
  restorePending(rows: readonly PendingRow[]): void {
    const items: PendingCall[] = [];
    for (const r of rows) {
      try {
        const { source, call } = JSON.parse(r.payload) as { source: SourceName; call: CallToCount };
        items.push({ source, traceId: r.traceId, key: r.callKey, dueMs: r.dueMs, call });
      } catch {
        // A row we cannot read cannot be counted either; it is left for retention.
      }
    }
    this.deps.ledger.restore(items, this.deps.now());
  }

  private check(c: CallToCount, source: SourceName, now: number): CheckedCall {
    const { outcome, nameKnown } = classify(c, this.deps.registry, this.deps.schemas);
    return {
      source,
      traceId: c.traceId,
      spanId: c.spanId,
      ...(c.callId ? { callId: c.callId } : {}),
      service: c.service,
      model: c.model,
      name: c.name,
      nameKnown,
      args: c.args,
      timeMs: c.timeMs || now,
      outcome,
      fromExecution: c.fromExecution,
    };
  }

  private count(source: SourceName, calls: readonly CheckedCall[], executions: readonly ExecutionToRecord[], dropped: number, duplicates: number): void {
    const { metrics: m, labels } = this.deps;
    for (const c of calls) {
      const outcome = c.outcome.outcome;
      const tool = outcome === 'UnknownName' ? UNKNOWN_TOOL : labels.value('tool', c.name);
      const service = labels.value('service', c.service);
      m.toolCalls.inc({ service, model: labels.value('model', c.model), tool, outcome, source });
      if (c.outcome.outcome === 'unvalidated') m.unvalidated.inc({ service, reason: c.outcome.reason });
    }
    for (const e of executions) {
      m.toolExecutions.inc({ service: labels.value('service', e.service), tool: labels.value('tool', e.execution.name), status: e.execution.status });
    }
    if (dropped) m.failureRecordsDropped.inc(dropped);
    if (duplicates) m.duplicateSpans.inc(duplicates);
  }
}

/**
 * The pending row's key as stored: written and deleted through this one function, so both match.
 * A call id can be as long as a span attribute; past MAX_KEY it is shortened with a digest of the
 * whole (an index row has a size limit: PostgreSQL refuses one over about 2.7 KB).
 */
const MAX_KEY = 256;
function pendingKey(traceId: string, key: string): { traceId: string; callKey: string } {
  const short = (k: string) =>
    k.length <= MAX_KEY ? k : `${k.slice(0, MAX_KEY - 66)}#${createHash('sha256').update(k).digest('hex')}`;
  return { traceId: storableText(short(traceId)), callKey: storableText(short(key)) };
}

// JSON.stringify escapes NUL and lone surrogates, so the payload is storable as it is.
function toRow(p: PendingCall): PendingRow {
  return { ...pendingKey(p.traceId, p.key), dueMs: p.dueMs, payload: JSON.stringify({ source: p.source, call: p.call }) };
}
