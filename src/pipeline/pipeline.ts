/**
 * One batch at a time: normalize → merge (one call, one count) → check → one durable write →
 * metrics (the write and what moves after it: batch-record.ts). The write batch is built once, whole:
 * the rows of the calls (under labels derived once per call), the pending-call changes, and the rows
 * sinks and the caller return. Metrics move only after the store committed, under the same labels,
 * so the two always agree, and a batch the store refused leaves no trace (the client's retry is
 * counted in full). Span taps (user feedback) read an OTLP batch's raw spans with the batch, and do
 * their own write after its commit; a tap whose work fails fails the request, and the client's retry
 * counts no call twice (the ledger remembers the batch's spans).
 */
import type { CheckedCall, LogEvent, SourceName, Span as OtlpSpan, SpanFacts } from '../model.js';
import { labelBudget } from '../metrics/label-cap.js';
import { DEFAULT_TOOL_ERROR_RULES, parseToolErrorRule, type ToolErrorRule } from '../normalize/tool-error.js';
import { isOwnTelemetry, type Span, startChild } from '../telemetry/tracing.js';
import type { BatchExtension, PendingRow } from '../store/store.js';
import { childStatuses, ExecutionHold } from './executions.js';
import { unsettledOwners } from './merge.js';
import { LogJoin } from './log-join.js';
import { logEventSpans } from '../normalize/log-events.js';
import { FailureCap } from './write-batch.js';
import { BatchMetrics } from './batch-metrics.js';
import { CallChecker } from './call-check.js';
import { Settler } from './settle.js';
import { BatchRecorder, unprocessable, type BatchHooks } from './batch-record.js';
import { BatchCoverage } from '../instrumentation/batch-coverage.js';

import {
  BatchUnprocessable,
  unprocessableOnThrow,
  type BatchSender,
  type BatchWriter,
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
  /** One batch's write and what moves once it committed (batch-record.ts). */
  private readonly recorder: BatchRecorder;
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
    const { owner, failureCap, executions, metrics, checker, logJoin, tick, toolErrorRules } = this;
    this.settler = new Settler({ deps, owner, failureCap, executions, metrics, checker });
    this.recorder = new BatchRecorder({
      deps,
      owner,
      failureCap,
      executions,
      metrics,
      checker,
      logJoin,
      tick,
      toolErrorRules,
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
    const { coverage, tracer, taps } = this.deps;
    // Reading is toolwatch's own processing: what fails here fails the same way on every resend.
    // What the batch needs of its raw spans after its commit (the coverage report, the taps) is read
    // here too, so the spans — most of a batch's bytes — need not wait for the commit with it. (No
    // closure here captures `spans`: V8 keeps one context per function for all of its closures.)
    let read: ReturnType<Pipeline['read']>;
    try {
      read = this.read(spans);
    } catch (err) {
      throw new BatchUnprocessable(err);
    }
    // A batch of toolwatch's own spans is not traced: tracing it would export the next one.
    const span = tracer && !isOwnTelemetry(spans) ? startChild(tracer, 'ingest batch', undefined) : undefined;
    const { children, facts, seen, found } = read;
    const budget = labelBudget(writer?.globs);
    const committed = coverage && seen ? this.metrics.spansSeen(coverage, seen, budget) : undefined;
    const after = taps && found ? recordTaps(taps, found, source, writer) : undefined;
    return this.record(span, facts, source, spans.length, { committed, after, cancelled, children, writer, token });
  }

  /**
   * A batch's facts and failing client spans, and what the coverage report (BatchCoverage) and the taps
   * take of its spans, in one pass: span by span, right after its reader, while it is fresh in the
   * CPU's caches.
   */
  private read(spans: readonly OtlpSpan[]) {
    const { dialects, coverage, taps } = this.deps;
    const children = childStatuses(spans);
    const seen = coverage ? new BatchCoverage() : undefined;
    const tapList = taps?.length ? taps : undefined;
    let found: unknown[] | undefined;
    if (tapList) found = new Array<unknown>(tapList.length).fill(undefined);
    const facts: SpanFacts[] = [];
    for (let i = 0; i < spans.length; i++) {
      const s = spans[i]!;
      const f = dialects.normalizeSpan(s);
      if (f) facts.push(f);
      seen?.add(s, f);
      if (tapList) for (let t = 0; t < tapList.length; t++) found![t] = tapList[t]!.read(s, found![t]);
    }
    return { children, facts, seen, found };
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
  private record(
    span: Span | undefined,
    facts: readonly SpanFacts[],
    source: SourceName,
    spanCount: number,
    hooks: BatchHooks = {},
  ): Promise<IngestSummary> {
    let waits: Promise<void>[];
    try {
      waits = unsettledOwners(facts, this.deps.ledger);
    } catch (err) {
      return Promise.reject(unprocessable(span, err));
    }
    if (waits.length > 0) return this.recordAfter(waits, span, facts, source, spanCount, hooks);
    return this.recorder.recordNow(span, facts, source, spanCount, hooks);
  }

  /** record(), once the unsettled batches that took some of these spans or calls have settled. */
  private async recordAfter(
    waits: Promise<void>[],
    span: Span | undefined,
    facts: readonly SpanFacts[],
    source: SourceName,
    spanCount: number,
    hooks: BatchHooks,
  ): Promise<IngestSummary> {
    try {
      for (; waits.length > 0; waits = unsettledOwners(facts, this.deps.ledger)) await Promise.all(waits);
    } catch (err) {
      throw unprocessable(span, err);
    }
    return this.recorder.recordNow(span, facts, source, spanCount, hooks);
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
}

/**
 * What the taps found in a batch, recorded once it committed, one tap after another; undefined when
 * none found anything.
 */
function recordTaps(
  taps: readonly SpanTap[],
  found: readonly unknown[],
  source: SourceName,
  writer: BatchWriter | undefined,
): (() => Promise<void> | undefined) | undefined {
  if (found.every((x) => x === undefined)) return undefined;
  return () => {
    let chain: Promise<void> | undefined;
    for (let t = 0; t < taps.length; t++) {
      const record = () => taps[t]!.record(found[t], source, writer);
      chain = chain ? chain.then(record) : record();
    }
    return chain;
  };
}
