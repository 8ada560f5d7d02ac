/**
 * One batch at a time: normalize → merge (one call, one count) → check → one durable write →
 * metrics. The write batch is built once, whole: the rows of the calls (under labels derived once
 * per call), the pending-call changes, and the rows sinks and the caller return. Metrics move only
 * after the store committed, under the same labels, so the two always agree, and a batch the store
 * refused leaves no trace (the client's retry is counted in full). Span taps (user feedback) read
 * an OTLP batch's raw spans after that, in their own write; a tap that fails fails the request, and
 * the client's retry counts no call twice (the ledger remembers the batch's spans).
 */
import type { CheckedCall, LogEvent, SourceName, Span as OtlpSpan, SpanFacts } from '../model.js';
import { labelBudget } from '../metrics/label-cap.js';
import {
  DEFAULT_TOOL_ERROR_RULES,
  parseToolErrorRule,
  toolErrorOf,
  type ToolErrorRule,
} from '../normalize/tool-error.js';
import { endSpan, isOwnTelemetry, type Span, startChild } from '../telemetry/tracing.js';
import type { BatchExtension, PendingRow, WriteBatch } from '../store/store.js';
import { childStatuses, ExecutionHold, type ChildStatus } from './executions.js';
import { mergeBatch, unsettledOwners } from './merge.js';
import { LogJoin } from './log-join.js';
import { logEventSpans } from '../normalize/log-events.js';
import { encodePending, storedPendingKey } from './pending-payload.js';
import { journalRecord } from './ledger-journal.js';
import {
  batchExtensions,
  batchCallLabels,
  buildWrite,
  executionLabels,
  FailureCap,
  type CallLabels,
  type ExecutionLabels,
  type WritePlan,
} from './write-batch.js';
import { BatchMetrics, batchAttributes, countedAs, failuresIn } from './batch-metrics.js';
import { CallChecker } from './call-check.js';
import { Settler } from './settle.js';

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
  private readonly checker: CallChecker;
  private readonly metrics: BatchMetrics;
  private readonly settler: Settler;
  /** Executions waiting for late child spans and for their call's outcome (executions.ts). */
  readonly executions: ExecutionHold;
  /** GenAI log records joined to their spans (log-join.ts). */
  readonly logJoin = new LogJoin();

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
    this.checker = new CallChecker(deps);
    this.executions = new ExecutionHold({
      statusGraceMs: deps.statusGraceMs ?? 0,
      callWaitMs: deps.executionGraceMs + CALL_WAIT_SLACK_MS,
      maxChildren: MAX_CHILDREN,
      childTtlMs: CHILD_TTL_MS,
    });
    this.metrics = new BatchMetrics(deps);
    const { owner, failureCap, executions, metrics, checker } = this;
    this.settler = new Settler({ deps, owner, failureCap, executions, metrics, checker });
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
      committed: () => this.metrics.observeSpans(coverage, spans, perSpan, labelBudget(writer?.globs)),
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
      const bounds = this.checker.bounds(token);
      calls = merged.calls.map((c) => this.checker.check(c, source, now, bounds));
      labels = batchCallLabels(calls, deps.labels, budget);
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
        extensions: batchExtensions(deps, { source, facts, calls, writer }, labels, extend, context?.extension),
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
    this.metrics.count(source, calls, labels, merged.entries, plan, merged.duplicateSpans, tick, () => budget);
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
      failures: failuresIn(calls),
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
    const settled = await this.settler.settleCalls(nowMs);
    await this.settler.countExecutions(this.executions.takeDue(nowMs), nowMs);
    await this.settler.countTrajectories(nowMs, false);
    return settled;
  }

  /** At shutdown: every held execution and every trajectory in flight is counted as it stands. */
  async drain(nowMs = this.tick()): Promise<void> {
    await this.settler.countExecutions(this.executions.takeDue(nowMs, true), nowMs);
    await this.settler.countTrajectories(nowMs, true);
  }

  /**
   * Puts back pending calls this process took over (pending-owner.ts: at start, or those of a process
   * gone since); a row that cannot be read is reported, not counted; a call this process already
   * counted from its proposal is reported as superseded.
   */
  restorePending(rows: readonly PendingRow[]): RestoreResult {
    return this.settler.restorePending(rows, this.tick);
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
}
