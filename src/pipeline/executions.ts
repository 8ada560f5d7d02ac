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
import type { ExecutionStatus, OutcomeName, SourceName, Span } from '../model.js';
import type { CallOutcomeLabel } from '../store/store.js';
import { downstreamStatus, worse } from '../normalize/exec-status.js';
import type { CallEntry } from './ledger.js';

export interface HoldOptions {
  /** How long an execution waits for child spans after its tool span arrived. */
  statusGraceMs: number;
  /** The longest an execution waits for its call to be counted, past statusGraceMs (then `unknown`). */
  callWaitMs: number;
  maxChildren: number;
  childTtlMs: number;
}

/** An execution as it waits: labels already capped, status still open to its children. */
export interface HeldExecution {
  source: SourceName;
  traceId: string;
  spanId: string;
  service: string;
  tool: string;
  status: ExecutionStatus;
  durationMs: number;
  timeMs: number;
  /** The ledger entry of its call (its outcome and model are set once the call is counted). */
  entry?: CallEntry;
  dueMs: number;
  latestMs: number;
}

/** An execution counted now, with everything its rows and metrics need. */
export interface ReleasedExecution {
  source: SourceName;
  traceId: string;
  service: string;
  model: string;
  tool: string;
  status: ExecutionStatus;
  callOutcome: CallOutcomeLabel;
  durationMs: number;
  timeMs: number;
  /** When its status grace ended: the moment it counts as having arrived, for the trajectory's idle clock. */
  dueMs: number;
}

/** A failing HTTP/RPC client span, waiting for (or applied to) its parent tool span. */
export interface ChildStatus {
  traceId: string;
  parentSpanId: string;
  status: Exclude<ExecutionStatus, 'ok'>;
}

const keyOf = (traceId: string, spanId: string): string => `${traceId}\u0000${spanId}`;

export class ExecutionHold {
  /** In arrival order, which is due order but for executions still waiting for their call. */
  private readonly held = new Map<string, HeldExecution>();
  /** Failing children whose parent was not held when they came: parent key → status, oldest first. */
  private readonly children = new Map<string, { status: ExecutionStatus; atMs: number }>();
  private restored = 0;

  constructor(private readonly opts: HoldOptions) {}

  get size(): number {
    return this.held.size;
  }

  get waitingChildren(): number {
    return this.children.size;
  }

  /** Holds a committed batch's execution; a failing child that came first sets its status now. */
  add(e: Omit<HeldExecution, 'dueMs' | 'latestMs'>, nowMs: number): void {
    const key = keyOf(e.traceId, e.spanId);
    const child = this.children.get(key);
    let status = e.status;
    if (child) {
      status = worse(status, child.status);
      this.children.delete(key);
    }
    const dueMs = nowMs + this.opts.statusGraceMs;
    this.held.set(key, { ...e, status, dueMs, latestMs: dueMs + this.opts.callWaitMs });
  }

  /** A committed batch's failing client span: applied to its parent if held, else remembered for it. */
  child(c: ChildStatus, nowMs: number): void {
    const key = keyOf(c.traceId, c.parentSpanId);
    const parent = this.held.get(key);
    if (parent) {
      parent.status = worse(parent.status, c.status);
      return;
    }
    const known = this.children.get(key);
    if (known) {
      known.status = worse(known.status, c.status);
      return;
    }
    this.forgetChildren(nowMs);
    while (this.children.size >= this.opts.maxChildren) this.children.delete(this.children.keys().next().value!);
    this.children.set(key, { status: c.status, atMs: nowMs });
  }

  /**
   * Removes and returns the executions to count at nowMs: past their status grace and with their call
   * counted (or past `latestMs`, then with an `unknown` call outcome). `all`: every one (shutdown).
   */
  takeDue(nowMs: number, all = false): ReleasedExecution[] {
    const out: ReleasedExecution[] = [];
    for (const [key, h] of this.held) {
      if (!all && h.dueMs > nowMs) break;
      const outcome = h.entry?.outcome;
      if (!all && h.entry && outcome === undefined && h.latestMs > nowMs) continue;
      this.held.delete(key);
      out.push(release(h, outcome));
    }
    this.forgetChildren(nowMs);
    return out;
  }

  /** Puts executions back after their write failed: the next round counts them (their children were applied). */
  restore(items: readonly ReleasedExecution[], nowMs: number): void {
    for (const r of items) {
      const key = keyOf(r.traceId, `restored:${++this.restored}`);
      const entry: CallEntry = {
        name: r.tool,
        argsRaw: undefined,
        hasId: false,
        executed: true,
        fromExecution: false,
        ...(r.callOutcome !== 'unknown' ? { outcome: r.callOutcome } : {}),
        model: r.model,
      };
      this.held.set(key, { ...r, spanId: key, entry, dueMs: nowMs, latestMs: nowMs });
    }
  }

  private forgetChildren(nowMs: number): void {
    for (const [key, c] of this.children) {
      if (nowMs - c.atMs <= this.opts.childTtlMs) break;
      this.children.delete(key);
    }
  }
}

function release(h: HeldExecution, outcome: OutcomeName | undefined): ReleasedExecution {
  return {
    source: h.source,
    traceId: h.traceId,
    service: h.service,
    model: h.entry?.model ?? '',
    tool: h.tool,
    status: h.status,
    callOutcome: outcome ?? 'unknown',
    durationMs: h.durationMs,
    timeMs: h.timeMs,
    dueMs: h.dueMs,
  };
}

/** The failing HTTP/RPC client spans of a batch (a kind and a lookup or two per span); undefined when none. */
export function childStatuses(spans: readonly Span[]): ChildStatus[] | undefined {
  let out: ChildStatus[] | undefined;
  for (const s of spans) {
    if (s.kind !== 3) continue;
    const status = downstreamStatus(s);
    if (status) (out ??= []).push({ traceId: s.traceId, parentSpanId: s.parentSpanId, status });
  }
  return out;
}
