/**
 * One batch's durable write, in two steps. prepare(), synchronous: merge (one call, one count), check,
 * label, and build the write batch — the rows of the calls, the pending-call changes, the journal
 * record, the sinks' rows. commit(), once the store took the write: the ledger, caps and metrics move
 * (under the labels the rows were stored with, so the two always agree), executions are held,
 * trajectories counted, the caller's hooks run. A batch the store refused leaves no trace (the
 * client's retry is counted in full).
 *
 * Only the Prepared record waits for the group commit: what prepare() made on the way (the facts, the
 * merged calls, the write's parts) is local to it and can be collected meanwhile — a batch in flight
 * holds ≈ 40 KB instead of ≈ 200 KB, which the young generation's collections would otherwise copy.
 */
import type { CheckedCall, SourceName, SpanFacts } from '../model.js';
import { labelBudget } from '../metrics/label-cap.js';
import { toolErrorOf, type ToolErrorRule } from '../normalize/tool-error.js';
import { endSpan, type Span } from '../telemetry/tracing.js';
import type { BatchExtension, WriteBatch } from '../store/store.js';
import type { ChildStatus } from './executions.js';
import { mergeBatch, type ExecutionToRecord } from './merge.js';
import type { CallEntry } from './ledger.js';
import type { LedgerTxn } from './ledger-txn.js';
import type { LogJoin } from './log-join.js';
import { trajectorySpans, type TrajectorySpan } from '../efficiency/tracker.js';
import { encodePending, storedPendingKey } from './pending-payload.js';
import { journalRecord } from './ledger-journal.js';
import { batchCallLabels, type CallLabels, executionLabels, type ExecutionLabels } from './call-labels.js';
import { batchExtensions, buildWrite, type WritePlan } from './write-batch.js';
import { batchAttributes, countedAs, failuresIn } from './batch-metrics.js';
import { BatchCancelled, BatchUnprocessable, type BatchWriter, type IngestSummary } from './ports.js';
import type { SettleParts } from './settle.js';

/** What a caller of record() hooks into one batch. */
export interface BatchHooks {
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

/**
 * What waits with a batch's write for its commit, and no more: the ledger transaction, what the
 * metrics, the execution hold and the trajectories take once it committed, and the caller's hooks.
 */
interface Prepared {
  batch: WriteBatch;
  txn: LedgerTxn;
  source: SourceName;
  spanCount: number;
  /** hrtime when the batch's preparation began (toolwatch_ingest_duration_seconds). */
  started: bigint;
  /** performance.now() then, for the batch span's `toolwatch.store.commit_ms` (0 without tracing). */
  writeStarted: number;
  tick: number;
  budget: string | undefined;
  calls: CheckedCall[];
  labels: CallLabels[];
  entries: CallEntry[];
  plan: WritePlan;
  executions: ExecutionToRecord[];
  execLabels: ExecutionLabels[];
  deferred: number;
  duplicateSpans: number;
  /** The batch's spans as its trajectories count them (undefined: trajectories off). */
  steps: TrajectorySpan[] | undefined;
  /** Values of the failure contexts the stored redactor refused. */
  redactionFailures: number;
  hooks: BatchHooks;
}

/** What the per-batch write shares with the rest of the pipeline (one of each per pipeline). */
export interface RecordParts extends SettleParts {
  logJoin: LogJoin;
  /** Timers' clock (PipelineDeps.steady). */
  tick: () => number;
  toolErrorRules: readonly ToolErrorRule[];
}

/** Only reading the batch's own facts can throw before its write: it would throw again on every resend. */
export function unprocessable(span: Span | undefined, err: unknown): BatchUnprocessable {
  if (span) endSpan(span, err);
  return new BatchUnprocessable(err);
}

export class BatchRecorder {
  constructor(private readonly parts: RecordParts) {}

  /**
   * The batch's write built and handed to the store, synchronously: from here to the store write
   * nothing awaits, so no other batch can take these spans meanwhile. What it made on the way —
   * facts, merged calls, the write's parts — is local to prepare(), so it can be collected while the
   * write waits for its group commit; only the Prepared record waits with it.
   */
  recordNow(
    span: Span | undefined,
    facts: readonly SpanFacts[],
    source: SourceName,
    spanCount: number,
    hooks: BatchHooks,
  ): Promise<IngestSummary> {
    if (hooks.cancelled?.()) {
      const err = new BatchCancelled();
      if (span) endSpan(span, err);
      return Promise.reject(err);
    }
    let p: Prepared;
    try {
      p = this.prepare(span, facts, source, spanCount, hooks);
    } catch (err) {
      return Promise.reject(unprocessable(span, err));
    }
    return this.commit(span, p);
  }

  /** Merge, check, label and build the batch's write; the ledger transaction is rolled back if any of it throws. */
  private prepare(
    span: Span | undefined,
    facts: readonly SpanFacts[],
    source: SourceName,
    spanCount: number,
    hooks: BatchHooks,
  ): Prepared {
    const { extend, writer, token } = hooks;
    const budget = labelBudget(writer?.globs);
    const { deps } = this.parts;
    const started = process.hrtime.bigint();
    const now = deps.now();
    // Times stored come from `now`; timers (the ledger's TTL, graces, idle clocks) from `tick`.
    const tick = this.parts.tick();
    this.parts.logJoin.remember(facts);
    const txn = deps.ledger.begin(tick);
    const writeStarted = span ? performance.now() : 0;
    try {
      const merged = mergeBatch(facts, txn, {
        source,
        dueMs: tick + deps.executionGraceMs,
        registryKnows: (service) => deps.registry.knows(service),
      });
      const bounds = this.parts.checker.bounds(token);
      const calls = merged.calls.map((c) => this.parts.checker.check(c, source, now, bounds));
      const labels = batchCallLabels(calls, deps.labels, budget);
      const execLabels = merged.executions.map((e) => executionLabels(e, deps.labels, budget));
      // A waiting call is labelled when counted, under its sender's budget.
      if (budget !== undefined) for (const p of merged.deferred) p.call.budget = budget;
      // Executions are counted a little later, with their settled status (executions.ts): none in this write.
      const plan = buildWrite(source, calls, labels, [], this.parts.failureCap, now, deps.redactor);
      const context = plan.rows.failures.length ? deps.failureContext?.(plan.rows.failures, facts) : undefined;
      const batch: WriteBatch = {
        ...plan.rows,
        pendingAdd: merged.deferred.map((p) => encodePending(p, this.parts.owner)),
        pendingRemove: merged.cancelled.map((c) => storedPendingKey(c.traceId, c.key)),
        // What the batch took, for the next process (ledger-journal.ts).
        ledger: journalRecord(txn.taken(), now, countedAs(merged.entries, calls, labels)),
        extensions: batchExtensions(deps, { source, facts, calls, writer }, labels, extend, context?.extension),
      };
      return {
        batch,
        txn,
        source,
        spanCount,
        started,
        writeStarted,
        tick,
        budget,
        calls,
        labels,
        entries: merged.entries,
        plan,
        executions: merged.executions,
        execLabels,
        deferred: merged.deferred.length,
        duplicateSpans: merged.duplicateSpans,
        steps: deps.trajectories ? trajectorySpans(facts) : undefined,
        redactionFailures: context?.redactionFailures ?? 0,
        hooks,
      };
    } catch (err) {
      // Whatever failed, the batch is settled: batches waiting on its spans go on.
      txn.rollback();
      throw err;
    }
  }

  /** The write, then what a committed batch moves: the ledger, caps, metrics, executions, trajectories, hooks. */
  private async commit(span: Span | undefined, p: Prepared): Promise<IngestSummary> {
    const { deps } = this.parts;
    const { txn, source, calls, labels, tick, budget, hooks } = p;
    try {
      await deps.store.write(p.batch);
    } catch (err) {
      txn.rollback();
      if (span) endSpan(span, err);
      deps.writeHealth?.failed(err);
      throw err;
    }
    txn.commit();
    deps.writeHealth?.succeeded();
    p.plan.commitCaps();
    hooks.committed?.();
    deps.metrics.spansReceived.inc({ source }, p.spanCount);
    this.parts.metrics.count(source, calls, labels, p.entries, p.plan, p.duplicateSpans, tick, () => budget);
    for (let i = 0; i < p.executions.length; i++) {
      const e = p.executions[i]!;
      const { service, tool } = p.execLabels[i]!;
      const { durationMs, httpStatus, result } = e.execution;
      const { traceId, spanId, timeMs, entry } = e;
      // A span that says it succeeded may carry a result that says it did not (normalize/tool-error.ts).
      const reported = e.execution.status === 'ok' ? toolErrorOf(result, this.parts.toolErrorRules) : undefined;
      const status = reported ? 'tool_error' : e.execution.status;
      const errorType = reported ? reported.errorType : e.execution.errorType;
      const args = e.execution.args.kind === 'none' ? undefined : e.execution.args.raw;
      // The arguments by reference (a late failing child may still make it a problem's example).
      this.parts.executions.add(
        { source, traceId, spanId, service, tool, status, durationMs, timeMs, entry, dueMs: 0, args },
        tick,
        status === 'ok' ? undefined : { httpStatus, errorType, result },
      );
    }
    if (hooks.children) for (const c of hooks.children) this.parts.executions.child(c, tick);
    if (p.steps) deps.trajectories?.spansRead(p.steps, tick);
    if (p.redactionFailures) deps.metrics.redactionFailures.inc({ what: 'context' }, p.redactionFailures);
    deps.metrics.ingestDuration.observe({ source }, Number(process.hrtime.bigint() - p.started) / 1e9);
    const summary: IngestSummary = {
      spans: p.spanCount,
      calls: calls.length,
      failures: failuresIn(calls),
      executions: p.executions.length,
      deferred: p.deferred,
      duplicateSpans: p.duplicateSpans,
    };
    if (span) {
      const commitMs = performance.now() - p.writeStarted;
      span.setAttributes({ ...batchAttributes(source, summary, calls), 'toolwatch.store.commit_ms': commitMs });
    }
    if (hooks.after) {
      try {
        const tail = hooks.after();
        if (tail) await tail;
      } catch (err) {
        if (span) endSpan(span, err);
        throw err;
      }
    }
    if (span) endSpan(span);
    return summary;
  }
}
