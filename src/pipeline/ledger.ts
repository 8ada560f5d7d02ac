/**
 * One call, one count (README: How calls are found and counted), across export batches: remembers, per trace, which
 * tool-bearing spans were already taken and which calls were already counted. Bounded: at most
 * `maxTraces` traces (least recently touched evicted first, and any idle longer than the TTL),
 * at most `maxCallsPerTrace` calls each. Every change made while a batch is being recorded can be
 * undone, so a batch the store refused (503) is counted in full when the client sends it again.
 */
import { canonicalJson } from '../check/schema-cache.js';
import type { OutcomeName, SourceName } from '../model.js';
import type { CallToCount } from './merge.js';

export interface CallEntry {
  name: string;
  /** Raw arguments, to pair an id-less tool span (OpenInference TOOL) with its proposal. */
  argsRaw: string | undefined;
  hasId: boolean;
  executed: boolean;
  /** Known from a tool span alone; a later proposal of the same call is not counted again. */
  fromExecution: boolean;
  /** Set while a tool-span-only call waits out the grace period for its proposal. */
  pending?: PendingCall;
  /** Known from an agent span's summary of its calls (SpanFacts.summaryCalls), not from a tool span. */
  summary?: true;
  /** Set once the call is counted (after its batch committed): what its execution is counted with. */
  outcome?: OutcomeName;
  model?: string;
}

/**
 * A call known only from its tool span, not yet counted: export batches arrive concurrently and
 * out of order, so the proposal (which carries the offered tools and is what gets classified) may
 * still be on its way. Counted from the tool span when `dueMs` passes without one.
 */
export interface PendingCall {
  source: SourceName;
  traceId: string;
  key: string;
  dueMs: number;
  call: CallToCount;
  /** The call's entry in the ledger (never persisted): its outcome is set when the call is counted. */
  entry?: CallEntry;
}

interface TraceState {
  spans: Set<string>;
  calls: Map<string, CallEntry>;
  touchedMs: number;
}

export interface LedgerOptions {
  maxTraces: number;
  maxCallsPerTrace: number;
  traceTtlMs: number;
}

const pendingKey = (traceId: string, key: string): string => `${traceId}\u0000${key}`;

export class Ledger {
  private readonly traces = new Map<string, TraceState>();
  /**
   * The id last moved to (or created at) the back of `traces`. Only trace() inserts, so while that id
   * is still in the map it is the last entry, and touching it again needs no delete + re-insert
   * (a batch touches the same trace several times in a row; on a map of 50k traces that move is
   * a measurable share of the ingest CPU).
   */
  private newest: string | undefined;
  /** @internal In due order (the grace period is constant). */ readonly pending = new Map<string, { entry: CallEntry; p: PendingCall }>();

  constructor(
    private readonly opts: LedgerOptions,
    private readonly onEvict: () => void = () => {},
  ) {}

  get size(): number {
    return this.traces.size;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Removes and returns the pending calls due by nowMs; their entries count as settled. */
  takeDue(nowMs: number): PendingCall[] {
    const due: PendingCall[] = [];
    for (const [k, { entry, p }] of this.pending) {
      if (p.dueMs > nowMs) break;
      this.pending.delete(k);
      delete entry.pending;
      due.push(p);
    }
    return due;
  }

  /**
   * Puts pending calls (back) in place: after a failed settle, or at start-up from the store.
   * Items keep their due time; a call already known to the ledger is left as it is.
   */
  restore(items: readonly PendingCall[], nowMs: number): void {
    const undo: (() => void)[] = [];
    for (const p of items) {
      const t = this.trace(p.traceId, nowMs, undo);
      let entry = t.calls.get(p.key);
      if (!entry) {
        const c = p.call;
        const argsRaw = c.args.kind === 'none' ? undefined : c.args.raw;
        // Only a summary's waiting call is not from an execution (merge: takeSummary); its tool span may still come.
        entry = c.fromExecution
          ? { name: c.name, argsRaw, hasId: Boolean(c.callId), executed: true, fromExecution: true }
          : { name: c.name, argsRaw, hasId: Boolean(c.callId), executed: false, fromExecution: true, summary: true };
        t.calls.set(p.key, entry);
      } else if (!entry.fromExecution) continue;
      entry.pending = p;
      p.entry = entry;
      this.pending.set(pendingKey(p.traceId, p.key), { entry, p });
    }
    // Keep due order after a put-back.
    const sorted = [...this.pending.entries()].sort((a, b) => a[1].p.dueMs - b[1].p.dueMs);
    this.pending.clear();
    for (const [k, v] of sorted) this.pending.set(k, v);
  }

  begin(nowMs: number): LedgerTxn {
    this.expire(nowMs);
    return new LedgerTxn(this, nowMs);
  }

  /** @internal */ trace(traceId: string, nowMs: number, undo: (() => void)[]): TraceState {
    let t = this.traces.get(traceId);
    if (t) {
      // Map order is recency order: move to the back (unless it is there already).
      if (this.newest !== traceId) {
        this.traces.delete(traceId);
        this.traces.set(traceId, t);
        this.newest = traceId;
      }
      t.touchedMs = nowMs;
      return t;
    }
    t = { spans: new Set(), calls: new Map(), touchedMs: nowMs };
    this.traces.set(traceId, t);
    this.newest = traceId;
    const created = t;
    undo.push(() => {
      if (this.traces.get(traceId) === created) this.traces.delete(traceId);
    });
    while (this.traces.size > this.opts.maxTraces) {
      this.traces.delete(this.traces.keys().next().value!);
      this.onEvict();
    }
    return t;
  }

  /** @internal */ get maxCallsPerTrace(): number {
    return this.opts.maxCallsPerTrace;
  }

  private expire(nowMs: number): void {
    for (const [id, t] of this.traces) {
      if (nowMs - t.touchedMs <= this.opts.traceTtlMs) break;
      this.traces.delete(id);
      this.onEvict();
    }
  }
}

export class LedgerTxn {
  private readonly undoLog: (() => void)[] = [];

  constructor(
    private readonly ledger: Ledger,
    private readonly nowMs: number,
  ) {}

  /** Claims a span; false when the span was already taken (a resent batch). */
  claimSpan(traceId: string, spanId: string): boolean {
    const t = this.ledger.trace(traceId, this.nowMs, this.undoLog);
    if (t.spans.has(spanId)) return false;
    t.spans.add(spanId);
    this.undoLog.push(() => t.spans.delete(spanId));
    return true;
  }

  get(traceId: string, key: string): CallEntry | undefined {
    return this.ledger.trace(traceId, this.nowMs, this.undoLog).calls.get(key);
  }

  /** Records a counted call. Past the per-trace cap the call is still counted, just not remembered. */
  add(traceId: string, key: string, entry: CallEntry): void {
    const t = this.ledger.trace(traceId, this.nowMs, this.undoLog);
    if (t.calls.size >= this.ledger.maxCallsPerTrace) return;
    t.calls.set(key, entry);
    this.undoLog.push(() => t.calls.delete(key));
  }

  /** A proposal arrived for a call known from its tool span: pair them. */
  claimOrphan(entry: CallEntry): void {
    entry.fromExecution = false;
    this.undoLog.push(() => {
      entry.fromExecution = true;
    });
    const p = entry.pending;
    if (p) {
      const k = pendingKey(p.traceId, p.key);
      const held = this.ledger.pending.get(k);
      this.ledger.pending.delete(k);
      delete entry.pending;
      this.undoLog.push(() => {
        entry.pending = p;
        if (held) this.ledger.restore([p], this.nowMs);
      });
    }
  }

  /** Holds a tool-span-only call until its grace period ends. */
  defer(entry: CallEntry, p: PendingCall): void {
    entry.pending = p;
    p.entry = entry;
    const k = pendingKey(p.traceId, p.key);
    this.ledger.pending.set(k, { entry, p });
    this.undoLog.push(() => {
      delete entry.pending;
      this.ledger.pending.delete(k);
    });
  }

  markExecuted(entry: CallEntry): void {
    if (entry.executed) return;
    entry.executed = true;
    this.undoLog.push(() => {
      entry.executed = false;
    });
  }

  /**
   * Finds a counted call of this trace that an id-less sighting belongs to: same name and equal
   * arguments first, else the oldest by name. Pairing by name alone may swap two parallel calls
   * of one tool, but each is still counted exactly once, which is what the numbers need.
   */
  findUnpaired(traceId: string, name: string, argsRaw: string | undefined, want: (e: CallEntry) => boolean): CallEntry | undefined {
    const t = this.ledger.trace(traceId, this.nowMs, this.undoLog);
    let byName: CallEntry | undefined;
    for (const e of t.calls.values()) {
      if (e.name !== name || !want(e)) continue;
      if (argsRaw !== undefined && e.argsRaw !== undefined && sameArgs(e.argsRaw, argsRaw)) return e;
      byName ??= e;
    }
    return byName;
  }

  rollback(): void {
    for (let i = this.undoLog.length - 1; i >= 0; i--) this.undoLog[i]!();
    this.undoLog.length = 0;
  }
}

/** Arguments compare equal when identical, or equal after parsing (emitters re-serialise differently). */
function sameArgs(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return canonicalJson(JSON.parse(a)) === canonicalJson(JSON.parse(b));
  } catch {
    return false;
  }
}
