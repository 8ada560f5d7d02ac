/**
 * A tool execution is counted a little after its tool span arrives, not at once, for two things that
 * may still be on their way:
 *
 * - its HTTP/RPC client child spans (the tool's calls to its downstream, linked by parentSpanId). A
 *   child usually ends, and is exported, before its parent, so most arrive first: a failing child
 *   whose parent is not here yet is remembered (bounded) and applied when the parent comes. One that
 *   comes after its parent still counts while the parent is held (`status_grace`). Statuses combine
 *   by `worse` (exec-status.ts), which does not depend on arrival order.
 * - the structural outcome and model of the execution's call: known at once when the call's proposal
 *   was counted first (the usual order); when only the tool span was seen so far, the execution waits
 *   until its call is counted (at most `execution_grace`), so the combined error rate knows whether the
 *   call already failed its check (and does not count it twice).
 *
 * Held executions live in memory only (bounded by traffic × grace): a crash loses the ones held at
 * that moment; a clean shutdown counts them. Children are remembered for at most `maxChildren` parent
 * spans, oldest forgotten first, and for at most `childTtlMs`.
 */
import type { ExecutionStatus, ReleasedExecution, Span } from '../model.js';
import { downstreamStatus, worse } from '../normalize/exec-status.js';
import { num } from '../util/values.js';
import { callEntry } from './ledger.js';
import { type ChildReading, type HeldExecution, HeldRing } from './held-ring.js';

export interface HoldOptions {
  /** How long an execution waits for child spans after its tool span arrived. */
  statusGraceMs: number;
  /** The longest an execution waits for its call to be counted, past statusGraceMs (then `unknown`). */
  callWaitMs: number;
  maxChildren: number;
  childTtlMs: number;
}

/** What a failed tool span said, kept for its problem (none for the many that succeed). */
export type FailureDetail = Pick<HeldExecution, 'httpStatus' | 'errorType' | 'result'>;

/** A failing HTTP/RPC client span, waiting for (or applied to) its parent tool span. */
export interface ChildStatus {
  traceId: string;
  parentSpanId: string;
  status: Exclude<ExecutionStatus, 'ok'>;
  /** The child's HTTP status code, when it carried one. */
  httpStatus?: number;
}

const keyOf = (traceId: string, spanId: string): string => `${traceId}\u0000${spanId}`;

/**
 * Held executions wait in arrival order in a ring (no key, no index: most traffic has no failing child
 * at all). Failing children go to a small map by (trace, parent span), looked up when their parent is
 * added and again when it is released; so the cost of finding a parent is paid only while there are
 * failing children.
 */
export class ExecutionHold {
  private readonly queue = new HeldRing();
  /** Past their status grace, still waiting for their call to be counted. */
  private waiting: HeldExecution[] = [];
  /** Failing children by parent key, oldest first. */
  private readonly children = new Map<string, ChildReading & { atMs: number }>();

  constructor(private readonly opts: HoldOptions) {}

  get size(): number {
    return this.queue.length + this.waiting.length;
  }

  get waitingChildren(): number {
    return this.children.size;
  }

  /**
   * Holds a committed batch's execution (copied into the ring; its `dueMs` is set here); a failing
   * child that came first sets its status now.
   */
  add(h: HeldExecution, nowMs: number, failed?: FailureDetail): void {
    if (failed) Object.assign(h, failed);
    if (this.children.size > 0) {
      const key = keyOf(h.traceId, h.spanId);
      const child = this.children.get(key);
      if (child) {
        const status = worse(h.status, child.status);
        if (status !== h.status) (h.httpStatus = child.httpStatus), (h.errorType = undefined);
        h.status = status;
        this.children.delete(key);
      }
    }
    h.dueMs = nowMs + this.opts.statusGraceMs;
    this.queue.push(h);
  }

  /** A committed batch's failing client span: remembered for its parent, held or still to come. */
  child(c: ChildStatus, nowMs: number): void {
    const key = keyOf(c.traceId, c.parentSpanId);
    const known = this.children.get(key);
    if (known) {
      const status = worse(known.status, c.status);
      if (status !== known.status) known.httpStatus = c.httpStatus;
      known.status = status;
      return;
    }
    this.forgetChildren(nowMs);
    while (this.children.size >= this.opts.maxChildren) this.children.delete(this.children.keys().next().value!);
    this.children.set(key, { status: c.status, httpStatus: c.httpStatus, atMs: nowMs });
  }

  /**
   * Removes and returns the executions to count at nowMs: past their status grace and with their call
   * counted (or, a `callWaitMs` later, with an `unknown` call outcome). `all`: every one (shutdown).
   */
  takeDue(nowMs: number, all = false): ReleasedExecution[] {
    const out: ReleasedExecution[] = [];
    const stillWaiting: HeldExecution[] = [];
    // A put-back execution (spanId '': its write failed) was ready before: it is ready again.
    const ready = (h: HeldExecution) =>
      all || !h.entry || h.spanId === '' || h.entry.outcome !== undefined || h.dueMs + this.opts.callWaitMs <= nowMs;
    for (const h of this.waiting) {
      if (ready(h)) out.push(this.release(h));
      else stillWaiting.push(h);
    }
    const q = this.queue;
    const lateChild =
      this.children.size > 0 ? (traceId: string, spanId: string) => this.takeChild(traceId, spanId) : undefined;
    for (let due = q.firstDue(); due !== undefined && (all || due <= nowMs); due = q.firstDue()) {
      if (all || !q.firstAwaitsCall() || due + this.opts.callWaitMs <= nowMs) out.push(q.release(lateChild));
      else stillWaiting.push(q.shift());
    }
    this.waiting = stillWaiting;
    this.forgetChildren(nowMs);
    return out;
  }

  /** Puts executions back after their write failed: the next round counts them (their children were applied). */
  restore(items: readonly ReleasedExecution[], nowMs: number): void {
    for (const r of items) {
      const entry = callEntry(r.tool, undefined, false, true, false);
      if (r.callOutcome !== 'unknown') entry.outcome = r.callOutcome;
      entry.model = r.model;
      const { source, traceId, service, tool, status, durationMs, timeMs } = r;
      this.waiting.push({
        source,
        traceId,
        spanId: '',
        service,
        tool,
        status,
        durationMs,
        timeMs,
        entry,
        dueMs: nowMs,
        httpStatus: r.httpStatus,
        errorType: r.errorType,
        args: r.args,
        result: r.result,
      });
    }
  }

  /** What the children that came for this span while it was held said (removed); undefined when none. */
  private takeChild(traceId: string, spanId: string): ChildReading | undefined {
    if (this.children.size === 0 || spanId === '') return undefined;
    const key = keyOf(traceId, spanId);
    const child = this.children.get(key);
    if (!child) return undefined;
    this.children.delete(key);
    return child;
  }

  /** Its children that came while it was held set its final status. */
  private release(h: HeldExecution): ReleasedExecution {
    const late = this.takeChild(h.traceId, h.spanId);
    const status = late ? worse(h.status, late.status) : h.status;
    const outcome = h.entry?.outcome;
    const r: ReleasedExecution = {
      source: h.source,
      traceId: h.traceId,
      service: h.service,
      model: h.entry?.model ?? '',
      tool: h.tool,
      status,
      callOutcome: outcome ?? 'unknown',
      durationMs: h.durationMs,
      timeMs: h.timeMs,
      dueMs: h.dueMs,
    };
    if (status !== 'ok') {
      const fromChild = status !== h.status && late;
      r.spanId = h.spanId;
      const http = fromChild ? late.httpStatus : h.httpStatus;
      if (http !== undefined) r.httpStatus = http;
      if (!fromChild && h.errorType !== undefined) r.errorType = h.errorType;
      if (h.args !== undefined) r.args = h.args;
      if (h.result !== undefined) r.result = h.result;
    }
    return r;
  }

  private forgetChildren(nowMs: number): void {
    for (const [key, c] of this.children) {
      if (nowMs - c.atMs <= this.opts.childTtlMs) break;
      this.children.delete(key);
    }
  }
}

/** The failing HTTP/RPC client spans of a batch (a kind and a lookup or two per span); undefined when none. */
export function childStatuses(spans: readonly Span[]): ChildStatus[] | undefined {
  let out: ChildStatus[] | undefined;
  for (const s of spans) {
    if (s.kind !== 3) continue;
    const status = downstreamStatus(s);
    if (!status) continue;
    const c: ChildStatus = { traceId: s.traceId, parentSpanId: s.parentSpanId, status };
    const http = num(s.attributes, 'http.response.status_code') ?? num(s.attributes, 'http.status_code');
    if (http !== undefined) c.httpStatus = http;
    (out ??= []).push(c);
  }
  return out;
}
