/**
 * One batch at a time: normalize → merge (one call, one count) → check → one durable write →
 * metrics. The write batch is built once, whole: the rows of the calls (under labels derived once
 * per call), the pending-call changes, and the rows sinks and the caller return. Metrics move only
 * after the store committed, under the same labels, so the two always agree, and a batch the store
 * refused leaves no trace (the client's retry is counted in full). Span taps (user feedback) read
 * an OTLP batch's raw spans after that, in their own write; a tap that fails fails the request, and
 * the client's retry counts no call twice (the ledger remembers the batch's spans).
 */
import type { CheckedCall, LogEvent, ReleasedExecution, SourceName, Span as OtlpSpan, SpanFacts } from '../model.js';
import { isFailure, OUTCOMES, type OutcomeName } from '../model.js';
import { CompileBudget, DEFAULT_CHECK_LIMITS, type CheckLimits } from '../check/budget.js';
import { classify, type CheckBounds } from '../check/classify.js';
import type { Metrics } from '../metrics/registry.js';
import { labelBudget } from '../metrics/label-cap.js';
import type { CoverageTracker } from '../instrumentation/coverage.js';
import {
  DEFAULT_TOOL_ERROR_RULES,
  parseToolErrorRule,
  toolErrorOf,
  type ToolErrorRule,
} from '../normalize/tool-error.js';
import { endSpan, isOwnTelemetry, type Span, startChild } from '../telemetry/tracing.js';
import type { BatchExtension, PendingRow, WriteBatch } from '../store/store.js';
import { emptyBatch } from '../store/store.js';
import { trajectoryExtension } from '../efficiency/store.js';
import type { CallEntry, PendingCall } from './ledger.js';
import { childStatuses, ExecutionHold, type ChildStatus } from './executions.js';
import { mergeBatch, unsettledOwners, type CallToCount } from './merge.js';
import { LogJoin } from './log-join.js';
import { logEventSpans } from '../normalize/log-events.js';
import { decodePending, encodePending, storedPendingKey } from './pending-payload.js';
import { journalRecord, type CountedAs } from './ledger-journal.js';
import {
  buildWrite,
  callLabels,
  executionLabels,
  FailureCap,
  peekLabel,
  scopeLabel,
  type CallLabels,
  type ExecutionLabels,
  type WritePlan,
} from './write-batch.js';

import {
  BatchCancelled,
  BatchUnprocessable,
  unprocessableOnThrow,
  type BatchSender,
  type BatchWriter,
  type FailureContextRows,
  type IngestSummary,
  type PipelineDeps,
  type RestoreResult,
  type SpanConsumer,
  type SpanTap,
} from './ports.js';

export type {
  BatchSender,
  BatchSink,
  BatchWriter,
  CountedCallSink,
  FailureContextRows,
  IngestSummary,
  PipelineDeps,
  RestoreResult,
  SpanConsumer,
  SpanTap,
} from './ports.js';
export { BatchCancelled, BatchUnprocessable } from './ports.js';

/** What a caller of record() hooks into one batch. */
interface BatchHooks {
  /** Rows for this batch's own transaction, from the checked calls. */
  extend?: ((calls: readonly CheckedCall[]) => readonly BatchExtension[]) | undefined;
  /** Runs after the store took the batch, before the metrics move (synchronous). */
  committed?: (() => void) | undefined;
  /** Runs after the metrics moved, inside the batch's telemetry span; its failure fails the batch's request. */
  after?: (() => Promise<void> | undefined) | undefined;
  /** Asked once nothing is recorded yet (after any wait for an unsettled original); true skips the batch (BatchCancelled). */
  cancelled?: (() => boolean) | undefined;
  /** The batch's failing HTTP/RPC client spans (for their parent tool spans' status). */
  children?: readonly ChildStatus[] | undefined;
  /** Who sent the batch (sinks check what it may add to other teams' traces). */
  writer?: BatchWriter | undefined;
  /** The ingest token that sent the batch: its compile budget is charged too. */
  token?: string | undefined;
}

/** The id pending rows are held under when the caller names none (one process, as in most tests). */
const LOCAL_OWNER = 'local';

/** Failing children wait this long (and at most this many parents) for their tool span. */
const CHILD_TTL_MS = 10 * 60_000;
const MAX_CHILDREN = 10_000;
/** Past its grace, an execution waits at most this much longer for its call to be counted (a store refusing writes). */
const CALL_WAIT_SLACK_MS = 60_000;

export class Pipeline implements SpanConsumer {
  private readonly failureCap: FailureCap;
  private readonly owner: string;
  private readonly limits: CheckLimits;
  private readonly compiles: CompileBudget;
  /** Executions waiting for late child spans and for their call's outcome (executions.ts). */
  readonly executions: ExecutionHold;
  /** GenAI log records joined to their spans (log-join.ts). */
  readonly logJoin = new LogJoin();
  private readonly durations = new Map<string, { observe(v: number): void }>();
  private readonly trajectoryChildren = new Map<
    string,
    Record<'toolCalls' | 'steps' | 'failedCalls' | 'duration' | 'tokens', { observe(v: number): void }>
  >();

  /** Timers' clock (PipelineDeps.steady). */
  private readonly tick: () => number;
  private readonly toolErrorRules: readonly ToolErrorRule[];

  constructor(private readonly deps: PipelineDeps) {
    this.tick = deps.steady ?? deps.now;
    this.toolErrorRules =
      deps.toolErrorRules ??
      DEFAULT_TOOL_ERROR_RULES.map(parseToolErrorRule).filter((r): r is ToolErrorRule => typeof r !== 'string');
    this.failureCap = new FailureCap(deps.failuresPerToolPerMinute);
    this.owner = deps.owner ?? LOCAL_OWNER;
    this.limits = deps.check ?? DEFAULT_CHECK_LIMITS;
    this.compiles = new CompileBudget(this.limits);
    this.executions = new ExecutionHold({
      statusGraceMs: deps.statusGraceMs ?? 0,
      callWaitMs: deps.executionGraceMs + CALL_WAIT_SLACK_MS,
      maxChildren: MAX_CHILDREN,
      childTtlMs: CHILD_TTL_MS,
    });
  }

  /**
   * `cancelled` is asked once nothing is recorded yet and the batch would be written now (after any
   * wait for an unsettled original): true skips the batch (BatchCancelled) — its client went away
   * and will resend. `sender`: the services its sender may write (`writer`, BatchWriter; undefined:
   * any) and the name of its ingest token (`token`: its compile budget).
   */
  ingestSpans(
    spans: readonly OtlpSpan[],
    source: SourceName = 'otlp',
    cancelled?: () => boolean,
    sender: BatchSender = {},
  ): Promise<IngestSummary> {
    const { writer, token } = sender;
    const { dialects, coverage, tracer, taps } = this.deps;
    // Reading is toolwatch's own processing: what fails here fails the same way on every resend.
    const read = unprocessableOnThrow(() => {
      const children = childStatuses(spans);
      if (!coverage) return { children, facts: dialects.normalizeSpans(spans), perSpan: undefined };
      // The coverage report needs what each span was read as (undefined: no reader recognised it).
      const perSpan: (SpanFacts | undefined)[] = new Array<SpanFacts | undefined>(spans.length);
      const facts: SpanFacts[] = [];
      for (let i = 0; i < spans.length; i++) {
        const f = dialects.normalizeSpan(spans[i]!);
        perSpan[i] = f;
        if (f) facts.push(f);
      }
      return { children, facts, perSpan };
    });
    // A batch of toolwatch's own spans is not traced: tracing it would export the next one.
    const span = tracer && !isOwnTelemetry(spans) ? startChild(tracer, 'ingest batch', undefined) : undefined;
    const after = taps?.length ? () => this.runTaps(taps, spans, source, writer) : undefined;
    const { children, facts, perSpan } = read;
    if (!coverage || !perSpan) {
      const hooks = { after, cancelled, children, writer, token };
      return this.record(span, facts, source, spans.length, hooks);
    }
    return this.record(span, facts, source, spans.length, {
      committed: () => this.observeSpans(coverage, spans, perSpan, labelBudget(writer?.globs)),
      after,
      cancelled,
      children,
      writer,
      token,
    });
  }

  /**
   * GenAI events that came as OTLP log records (POST /v1/logs): read as the span events they stand
   * for and joined to their span (log-join.ts); recorded like a span batch, with the same guarantees.
   */
  ingestLogEvents(
    events: readonly LogEvent[],
    cancelled?: () => boolean,
    sender: BatchSender = {},
  ): Promise<IngestSummary> {
    const facts = unprocessableOnThrow(() => {
      const out: SpanFacts[] = [];
      for (const s of logEventSpans(events)) {
        const f = this.deps.dialects.normalizeSpan(s);
        if (!f) continue;
        // Same records, same id: a resent log batch is a duplicate, later records of the span are not.
        this.logJoin.join(f, `log:${s.spanId}:${s.startTimeMs}:${s.events.length}`);
        out.push(f);
      }
      return out;
    });
    const span = this.deps.tracer ? startChild(this.deps.tracer, 'ingest batch', undefined) : undefined;
    return this.record(span, facts, 'otlp', 0, { cancelled, writer: sender.writer, token: sender.token });
  }

  /**
   * `extend` lets a caller add rows to this batch's own transaction from the checked calls (the
   * Langfuse source records the observation ids it took and the score writes it owes, so they
   * commit, or not, together with the counts). `parent`: the caller's span (a Langfuse sync window).
   */
  ingestFacts(
    facts: readonly SpanFacts[],
    source: SourceName,
    spanCount = facts.length,
    extend?: (calls: readonly CheckedCall[]) => readonly BatchExtension[],
    parent?: Span,
  ): Promise<IngestSummary> {
    const span = this.deps.tracer ? startChild(this.deps.tracer, 'ingest batch', parent) : undefined;
    return this.record(span, facts, source, spanCount, { extend });
  }

  /**
   * One batch, one durable write (BatchHooks say what a caller adds). `span`: this batch's own
   * self-telemetry span, when tracing is on.
   *
   * A batch that shares spans or id-keyed calls with one still being written first waits for that
   * one's outcome, so a resend is acknowledged as a duplicate only once its original committed, and
   * counted in full if the original was refused. `cancelled` is asked then, while nothing is recorded
   * yet: true skips the batch (BatchCancelled) — its client went away and will resend.
   */
  private async record(
    span: Span | undefined,
    facts: readonly SpanFacts[],
    source: SourceName,
    spanCount: number,
    hooks: BatchHooks = {},
  ): Promise<IngestSummary> {
    const { extend, committed, after, cancelled, children, writer, token } = hooks;
    const budget = labelBudget(writer?.globs);
    const { deps } = this;
    const started = process.hrtime.bigint();
    try {
      for (let waits = unsettledOwners(facts, deps.ledger); waits.length > 0; ) {
        await Promise.all(waits);
        waits = unsettledOwners(facts, deps.ledger);
      }
      if (cancelled?.()) throw new BatchCancelled();
    } catch (err) {
      if (span) endSpan(span, err);
      // Only reading the batch's own facts can throw here: it would throw again on every resend.
      throw err instanceof BatchCancelled ? err : new BatchUnprocessable(err);
    }
    // From here to the store write nothing awaits: no other batch can take these spans meanwhile.
    const now = deps.now();
    // Times stored come from `now`; timers (the ledger's TTL, graces, idle clocks) from `tick`.
    const tick = this.tick();
    this.logJoin.remember(facts);
    const txn = deps.ledger.begin(tick);
    let merged: ReturnType<typeof mergeBatch>;
    let calls: CheckedCall[];
    let labels: CallLabels[];
    let execLabels: ExecutionLabels[];
    let plan: WritePlan;
    let context: FailureContextRows | undefined;
    const writeStarted = span ? performance.now() : 0;
    let writing = false;
    try {
      merged = mergeBatch(facts, txn, {
        source,
        dueMs: tick + deps.executionGraceMs,
        registryKnows: (service) => deps.registry.knows(service),
      });
      const bounds = this.bounds(token);
      calls = merged.calls.map((c) => this.check(c, source, now, bounds));
      labels = calls.map((c) => callLabels(c, deps.labels, budget));
      execLabels = merged.executions.map((e) => executionLabels(e, deps.labels, budget));
      // A waiting call is labelled when counted, under its sender's budget.
      if (budget !== undefined) for (const p of merged.deferred) p.call.budget = budget;
      // Executions are counted a little later, with their settled status (executions.ts): none in this write.
      plan = buildWrite(source, calls, labels, [], this.failureCap, now, deps.redactor);
      context = plan.rows.failures.length ? deps.failureContext?.(plan.rows.failures, facts) : undefined;
      const batch: WriteBatch = {
        ...plan.rows,
        pendingAdd: merged.deferred.map((p) => encodePending(p, this.owner)),
        pendingRemove: merged.cancelled.map((c) => storedPendingKey(c.traceId, c.key)),
        // What the batch took, for the next process (ledger-journal.ts).
        ledger: journalRecord(txn.taken(), now, countedAs(merged.entries, calls, labels)),
        extensions: [
          ...(deps.sinks ?? []).flatMap((sink) => sink.collect({ source, facts, calls, writer })),
          ...(extend?.(calls) ?? []),
          ...(context ? [context.extension] : []),
          ...[deps.counted?.extension(calls, labels, facts)].filter((x) => x !== undefined),
        ],
      };
      writing = true;
      await deps.store.write(batch);
    } catch (err) {
      // Whatever failed, the batch is settled: batches waiting on its spans go on.
      txn.rollback();
      if (span) endSpan(span, err);
      if (!writing) throw new BatchUnprocessable(err);
      deps.writeHealth?.failed(err);
      throw err;
    }
    txn.commit();
    deps.writeHealth?.succeeded();
    plan.commitCaps();
    committed?.();
    deps.metrics.spansReceived.inc({ source }, spanCount);
    this.count(source, calls, labels, merged.entries, plan, merged.duplicateSpans, tick, () => budget);
    for (let i = 0; i < merged.executions.length; i++) {
      const e = merged.executions[i]!;
      const { service, tool } = execLabels[i]!;
      const { durationMs, httpStatus, result } = e.execution;
      const { traceId, spanId, timeMs, entry } = e;
      // A span that says it succeeded may carry a result that says it did not (normalize/tool-error.ts).
      const reported = e.execution.status === 'ok' ? toolErrorOf(result, this.toolErrorRules) : undefined;
      const status = reported ? 'tool_error' : e.execution.status;
      const errorType = reported ? reported.errorType : e.execution.errorType;
      const args = e.execution.args.kind === 'none' ? undefined : e.execution.args.raw;
      // The arguments by reference (a late failing child may still make it a problem's example).
      this.executions.add(
        { source, traceId, spanId, service, tool, status, durationMs, timeMs, entry, dueMs: 0, args },
        tick,
        status === 'ok' ? undefined : { httpStatus, errorType, result },
      );
    }
    if (children) for (const c of children) this.executions.child(c, tick);
    deps.trajectories?.spans(facts, tick);
    if (context?.redactionFailures) deps.metrics.redactionFailures.inc({ what: 'context' }, context.redactionFailures);
    deps.metrics.ingestDuration.observe({ source }, Number(process.hrtime.bigint() - started) / 1e9);
    const summary: IngestSummary = {
      spans: spanCount,
      calls: calls.length,
      failures: calls.filter((c) => isFailure(c.outcome.outcome)).length,
      executions: merged.executions.length,
      deferred: merged.deferred.length,
      duplicateSpans: merged.duplicateSpans,
    };
    const commitMs = span ? performance.now() - writeStarted : 0;
    if (span) span.setAttributes({ ...batchAttributes(source, summary, calls), 'toolwatch.store.commit_ms': commitMs });
    if (after) {
      try {
        const tail = after();
        if (tail) await tail;
      } catch (err) {
        if (span) endSpan(span, err);
        throw err;
      }
    }
    if (span) endSpan(span);
    return summary;
  }

  /**
   * Counts what waited: the tool-span-only calls whose grace period ended by nowMs without a proposal
   * (those whose rows this process still holds: pending-owner.ts), then the executions whose status
   * grace ended (and whose call is counted), then the trajectories that went idle; returns how many
   * calls it counted. Runs on a timer; on a store error everything stays waiting and the next run
   * tries again. `nowMs` is on the timers' clock (PipelineDeps.steady).
   */
  async settle(nowMs = this.tick()): Promise<number> {
    const settled = await this.settleCalls(nowMs);
    await this.countExecutions(this.executions.takeDue(nowMs), nowMs);
    await this.countTrajectories(nowMs, false);
    return settled;
  }

  /** At shutdown: every held execution and every trajectory in flight is counted as it stands. */
  async drain(nowMs = this.tick()): Promise<void> {
    await this.countExecutions(this.executions.takeDue(nowMs, true), nowMs);
    await this.countTrajectories(nowMs, true);
  }

  private async settleCalls(nowMs: number): Promise<number> {
    const { deps } = this;
    const due = deps.ledger.takeDue(nowMs);
    if (due.length === 0) return 0;
    const wall = this.stamp(nowMs);
    const bySource = new Map<SourceName, PendingCall[]>();
    for (const p of due) bySource.set(p.source, [...(bySource.get(p.source) ?? []), p]);
    let counted = 0;
    for (const [source, items] of bySource) {
      const keys = items.map((p) => storedPendingKey(p.traceId, p.key));
      const bounds = this.bounds();
      const calls = items.map((p) => this.check(p.call, source, wall, bounds));
      const labels = calls.map((c, i) => callLabels(c, deps.labels, items[i]!.call.budget));
      let held: CheckedCall[] = [];
      let heldLabels: CallLabels[] = [];
      let heldEntries: (CallEntry | undefined)[] = [];
      let heldBudgets: (string | undefined)[] = [];
      let plan: WritePlan | undefined;
      try {
        await deps.store.settlePending(this.owner, keys, (taken) => {
          const still = new Set(taken.map((k) => `${k.traceId}\u0000${k.callKey}`));
          const mine = keys.flatMap((k, i) => (still.has(`${k.traceId}\u0000${k.callKey}`) ? [i] : []));
          held = mine.map((i) => calls[i]!);
          heldLabels = mine.map((i) => labels[i]!);
          heldEntries = mine.map((i) => items[i]!.entry);
          heldBudgets = mine.map((i) => items[i]!.call.budget);
          plan = buildWrite(source, held, heldLabels, [], this.failureCap, wall, deps.redactor);
          const counted = deps.counted?.extension(held, heldLabels, []);
          return { ...plan.rows, pendingAdd: [], pendingRemove: [], extensions: counted ? [counted] : [] };
        });
      } catch (err) {
        deps.ledger.restore(items, nowMs);
        deps.writeHealth?.failed(err);
        throw err;
      }
      deps.writeHealth?.succeeded();
      if (!plan) continue;
      plan.commitCaps();
      // Counted now, but due when their grace ended: the trajectory's idle clock runs from then.
      const dueMs = Math.min(
        nowMs,
        items.reduce((m, p) => Math.max(m, p.dueMs), 0),
      );
      this.count(source, held, heldLabels, heldEntries, plan, 0, dueMs, (i) => heldBudgets[i]);
      counted += held.length;
    }
    return counted;
  }

  /** Writes released executions (their minute aggregates), then moves their metrics; put back on a store error. */
  private async countExecutions(released: readonly ReleasedExecution[], nowMs: number): Promise<void> {
    if (released.length === 0) return;
    const { deps } = this;
    const batch = emptyBatch();
    const bySource = new Map<SourceName, ReleasedExecution[]>();
    for (const e of released) {
      const list = bySource.get(e.source);
      if (list) list.push(e);
      else bySource.set(e.source, [e]);
    }
    for (const [source, items] of bySource) {
      const plan = buildWrite(source, [], [], items, this.failureCap, this.stamp(nowMs), deps.redactor);
      for (const row of plan.rows.executionAggregates) batch.executionAggregates.push(row);
    }
    const filed = deps.counted?.executions?.(released);
    if (filed) batch.extensions.push(filed);
    try {
      await deps.store.write(batch);
    } catch (err) {
      this.executions.restore(released, nowMs);
      throw err;
    }
    // The counter moves by the rows just written (one inc per row, not per execution); the histogram per execution.
    const m = deps.metrics;
    const cap = deps.labels;
    for (const r of batch.executionAggregates) {
      const service = peekLabel(cap, 'service', r.service);
      m.toolExecutions.inc(
        { service, tool: peekLabel(cap, 'tool', r.tool), status: r.status, call_outcome: r.callOutcome },
        r.count,
      );
    }
    let dueMs = 0;
    for (const e of released) {
      this.durationOf(e.service, e.tool).observe(e.durationMs / 1000);
      if (e.dueMs > dueMs) dueMs = e.dueMs;
    }
    deps.trajectories?.executions(released, Math.min(nowMs, dueMs));
  }

  /** The latency histogram's child for a stored service and tool (their labels: capped), bound once (metrics/bound-histogram.ts). */
  private durationOf(service: string, tool: string): { observe(v: number): void } {
    const cap = this.deps.labels;
    const labels = { service: peekLabel(cap, 'service', service), tool: peekLabel(cap, 'tool', tool) };
    const key = `${labels.service}\u0000${labels.tool}`;
    let child = this.durations.get(key);
    if (!child) this.durations.set(key, (child = this.deps.metrics.toolExecutionDuration.bind(labels)));
    return child;
  }

  /** Writes the trajectories that went idle (all: every one in flight), then observes their histograms. */
  private async countTrajectories(nowMs: number, all: boolean): Promise<void> {
    const tracker = this.deps.trajectories;
    if (!tracker) return;
    const done = tracker.takeIdle(nowMs, all);
    const extension = trajectoryExtension(done);
    if (!extension) return;
    const repairs = this.deps.counted?.trajectories?.(done);
    try {
      await this.deps.store.write({ ...emptyBatch(), extensions: repairs ? [extension, repairs] : [extension] });
    } catch (err) {
      tracker.restore(done);
      throw err;
    }
    const m = this.deps.metrics;
    let last: string | undefined;
    let h: ReturnType<Pipeline['trajectoryHistograms']> | undefined;
    for (const t of done) {
      // A trajectory's service is stored as its calls were; its label, as their metric's (capped).
      if (t.service !== last || !h)
        (h = this.trajectoryHistograms(peekLabel(this.deps.labels, 'service', t.service), m)), (last = t.service);
      h.toolCalls.observe(t.toolCalls);
      h.steps.observe(t.steps);
      h.failedCalls.observe(t.failedCalls);
      h.duration.observe(t.durationMs / 1000);
      if (t.tokens !== null) h.tokens.observe(t.tokens);
    }
  }

  /**
   * Puts back pending calls this process took over (pending-owner.ts: at start, or those of a process
   * gone since); a row that cannot be read is reported, not counted; a call this process already
   * counted from its proposal is reported as superseded.
   */
  restorePending(rows: readonly PendingRow[]): RestoreResult {
    const items: PendingCall[] = [];
    const unreadable: RestoreResult['unreadable'] = [];
    // A row's due time is on its writer's timer clock; after a wall-clock jump there it may lie far
    // ahead: a call never waits longer than one grace period from now.
    const latest = this.tick() + this.deps.executionGraceMs;
    for (const r of rows) {
      const d = decodePending(r);
      if (d.ok) items.push(d.call.dueMs > latest ? { ...d.call, dueMs: latest } : d.call);
      else unreadable.push({ traceId: r.traceId, callKey: r.callKey, reason: d.reason });
    }
    const superseded = this.deps.ledger.restore(items, this.tick());
    return {
      restored: items.length - superseded.length,
      unreadable,
      superseded: superseded.map((p) => storedPendingKey(p.traceId, p.key)),
    };
  }

  /**
   * The wall-clock time to store for a timer reading: the wall clock's own when the timers run on it
   * (tests that pass their own `nowMs`), else now.
   */
  private stamp(tickMs: number): number {
    return this.deps.steady ? this.deps.now() : tickMs;
  }

  /** What one batch's checking may cost, from now: its compile allowance and its validation deadline. */
  private bounds(token?: string): CheckBounds {
    const deadlineMs = performance.now() + this.limits.validationTimePerBatchMs;
    return { limits: this.limits, compiles: this.compiles.forBatch(token), deadlineMs };
  }

  private check(c: CallToCount, source: SourceName, now: number, bounds: CheckBounds): CheckedCall {
    const outcome = classify(c, this.deps.registry, this.deps.schemas, bounds);
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
      ...(c.schemaFrom ? { schemaFrom: c.schemaFrom } : {}),
      fromExecution: c.fromExecution,
      ...(c.scope !== undefined ? { scope: c.scope, scopeVersion: c.scopeVersion ?? '' } : {}),
    };
  }

  /** A committed batch's raw spans to every tap, one after another; undefined when none had work to do. */
  private runTaps(
    taps: readonly SpanTap[],
    spans: readonly OtlpSpan[],
    source: SourceName,
    writer: BatchWriter | undefined,
  ): Promise<void> | undefined {
    let chain: Promise<void> | undefined;
    for (const tap of taps)
      chain = chain ? chain.then(() => tap.take(spans, source, writer)) : tap.take(spans, source, writer);
    return chain;
  }

  /** A committed batch's spans into the coverage report; LLM-looking spans no reader knew, per scope, into the metric. */
  private observeSpans(
    coverage: CoverageTracker,
    spans: readonly OtlpSpan[],
    perSpan: readonly (SpanFacts | undefined)[],
    budget: string | undefined,
  ): void {
    let unrecognized: Map<string, number> | undefined;
    for (let i = 0; i < spans.length; i++) {
      const span = spans[i]!;
      if (coverage.observeSpan(span, perSpan[i], budget) !== 'unrecognized') continue;
      unrecognized ??= new Map();
      unrecognized.set(span.scope, (unrecognized.get(span.scope) ?? 0) + 1);
    }
    if (!unrecognized) return;
    const { metrics, labels } = this.deps;
    for (const [scope, n] of unrecognized)
      metrics.spansUnrecognized.inc({ scope: scopeLabel(scope, labels, budget) }, n);
  }

  /** The trajectory histograms' children of a service (bound once, like durationOf). */
  private trajectoryHistograms(service: string, m: Metrics) {
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
  private count(
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
    for (let i = 0; i < calls.length; i++) {
      const o = calls[i]!.outcome;
      const l = labels[i]!;
      const { service, model, tool } = l.metric;
      m.toolCalls.inc({ service, model, tool, outcome: o.outcome, source });
      if (o.outcome === 'unvalidated') m.unvalidated.inc({ service, reason: o.reason });
      else if (o.outcome === 'InvalidJson') m.invalidJson.inc({ service, reason: o.cause });
      const entry = entries[i];
      if (entry) {
        entry.outcome = o.outcome;
        // Its execution's stored row takes the call's stored model.
        entry.model = l.model;
        this.deps.ledger.counted(entry);
      }
    }
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

/** The outcome and model label each call of a batch is counted with, by its ledger entry (for the journal). */
function countedAs(
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
function batchAttributes(
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
