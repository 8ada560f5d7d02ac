/**
 * One call, one count (README: How calls are found and counted), across export batches: remembers, per trace, which
 * tool-bearing spans were already taken and which calls were already counted. Bounded: at most
 * `maxTraces` traces (least recently touched evicted first, and any idle longer than the TTL),
 * at most `maxCallsPerTrace` calls each. Every change made while a batch is being recorded can be
 * undone, so a batch the store refused (503) is counted in full when the client sends it again.
 *
 * A trace past its call cap is marked overflowed (and the mark is journalled): a call counted then is
 * not remembered, so a tool span of a call the ledger does not know, in that trace, may be the
 * execution of such a call and is taken as seen, never counted on its own. The cap may so miss a
 * tool-span-only call of a huge trace, but never counts one call twice.
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
 * A call entry with every field present from the start: hundreds of thousands of them live in a full
 * ledger, and one shape for all (fields set later, never added or deleted) keeps each in V8's compact
 * in-object layout — properties added after creation cost every entry an extra backing store.
 */
export function callEntry(
  name: string,
  argsRaw: string | undefined,
  hasId: boolean,
  executed: boolean,
  fromExecution: boolean,
  summary?: true,
): CallEntry {
  return {
    name,
    argsRaw,
    hasId,
    executed,
    fromExecution,
    pending: undefined,
    summary,
    outcome: undefined,
    model: undefined,
  };
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
  id: string;
  /** Neighbours in recency order (Ledger.oldest … Ledger.newest). */
  older: TraceState | undefined;
  newer: TraceState | undefined;
  /**
   * Taken spans: span id → the service (or services) that sent it, ANY_SERVICE for one restored from
   * a journal record that named none. Service strings are shared by every span of a resource, so
   * this costs what a set of span ids did.
   */
  spans: Map<string, string | string[]>;
  calls: Map<string, CallEntry>;
  touchedMs: number;
  /** A call of this trace was counted past maxCallsPerTrace and not remembered (see the file comment). */
  overflowed: boolean;
  /**
   * Spans and calls taken by a batch whose store write has not settled yet. A resend of that batch
   * must not be acknowledged as a duplicate before the original committed (if the original is then
   * rolled back, nothing would be stored): it waits for the original's outcome (see heldBy).
   */
  unsettled?: Map<string, LedgerTxn> | undefined;
}

/** A call's state as a journal record keeps it (its outcome and model once it was counted). */
export type RecordedCall = Pick<CallEntry, 'name' | 'hasId' | 'executed' | 'fromExecution'> &
  Partial<Pick<CallEntry, 'outcome' | 'model'>> & { summary?: true };

/** What one batch took in one trace: the spans it claimed, the calls it added or changed (their state after it). */
export interface TakenInTrace {
  traceId: string;
  spans: string[];
  calls: Map<string, CallEntry>;
  /** This batch overflowed the trace's call cap (journalled as OVERFLOW_KEY). */
  overflowed?: true;
}

/** The journal's marker of an overflowed trace: a call key no reader makes (theirs start `id:`, `pos:`, …). */
export const OVERFLOW_KEY = '!overflow';

export interface LedgerOptions {
  maxTraces: number;
  maxCallsPerTrace: number;
  traceTtlMs: number;
}

const pendingKey = (traceId: string, key: string): string => `${traceId}\u0000${key}`;

/**
 * A taken span is remembered by its id and its service: trace and span ids travel in `traceparent` to
 * every service an agent calls, so a span of another service under the same ids (sent first, by
 * another team) is a different span, not a resend that would hide the real one.
 */
export const spanKey = (spanId: string, service: string): string => `${spanId}\u0000${service}`;

/** A span restored from a journal record written before spans were kept with their service: any service's resend. */
const ANY_SERVICE = '\u0000*';

const takenBy = (v: string | string[] | undefined, service: string): boolean =>
  v !== undefined && (v === service || v === ANY_SERVICE || (Array.isArray(v) && v.includes(service)));

export class Ledger {
  private readonly traces = new Map<string, TraceState>();
  /**
   * Recency order as a list through the traces themselves, least recently touched first. Not the
   * Map's insertion order: a V8 Map marks deleted entries and skips them when iterated, so taking its
   * first key after many deletes at the front scans every one of them (~12 µs per eviction at 50k
   * traces, a tenth of the ingest CPU once the ledger is full), and a move to the back is a delete too.
   */
  private oldest: TraceState | undefined;
  private newest: TraceState | undefined;
  /** @internal In due order (the grace period is constant). */ readonly pending = new Map<
    string,
    { entry: CallEntry; p: PendingCall }
  >();

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
      entry.pending = undefined;
      due.push(p);
    }
    return due;
  }

  /**
   * Puts pending calls (back) in place: after a failed settle, or at start-up from the store.
   * Items keep their due time; a call already known to the ledger is left as it is. Returns the items
   * whose call was already counted from its proposal (not put back).
   */
  restore(items: readonly PendingCall[], nowMs: number): PendingCall[] {
    const undo: (() => void)[] = [];
    const superseded: PendingCall[] = [];
    for (const p of items) {
      const t = this.trace(p.traceId, nowMs, undo);
      let entry = t.calls.get(p.key);
      if (!entry) {
        const c = p.call;
        const argsRaw = c.args.kind === 'none' ? undefined : c.args.raw;
        // Only a summary's waiting call is not from an execution (merge: takeSummary); its tool span may still come.
        entry = c.fromExecution
          ? callEntry(c.name, argsRaw, Boolean(c.callId), true, true)
          : callEntry(c.name, argsRaw, Boolean(c.callId), false, true, true);
        t.calls.set(p.key, entry);
      } else if (!entry.fromExecution) {
        superseded.push(p);
        continue;
      }
      entry.pending = p;
      p.entry = entry;
      this.pending.set(pendingKey(p.traceId, p.key), { entry, p });
    }
    // Keep due order after a put-back.
    const sorted = [...this.pending.entries()].sort((a, b) => a[1].p.dueMs - b[1].p.dueMs);
    this.pending.clear();
    for (const [k, v] of sorted) this.pending.set(k, v);
    return superseded;
  }

  /** @internal A trace's state when the ledger has it, never creating it. */
  known(traceId: string): TraceState | undefined {
    return this.traces.get(traceId);
  }

  begin(nowMs: number): LedgerTxn {
    this.expire(nowMs);
    return new LedgerTxn(this, nowMs);
  }

  /**
   * The unsettled batch that took this span (`span` kind, by span id) or call key (`call`) of the trace, if
   * another batch than `self` did; a caller awaits its `settled` before deciding about duplicates.
   */
  heldBy(traceId: string, kind: 'span' | 'call', key: string): LedgerTxn | undefined {
    return this.traces.get(traceId)?.unsettled?.get(kind === 'span' ? key : `\u0001${key}`);
  }

  /** @internal */ trace(traceId: string, nowMs: number, undo: (() => void)[]): TraceState {
    let t = this.traces.get(traceId);
    if (t) {
      if (this.newest !== t) {
        this.unlink(t);
        this.append(t);
      }
      t.touchedMs = nowMs;
      return t;
    }
    t = {
      id: traceId,
      older: undefined,
      newer: undefined,
      spans: new Map(),
      calls: new Map(),
      touchedMs: nowMs,
      overflowed: false,
    };
    this.traces.set(traceId, t);
    this.append(t);
    const created = t;
    undo.push(() => {
      if (this.traces.get(traceId) === created) this.drop(created);
    });
    while (this.traces.size > this.opts.maxTraces && this.oldest) {
      this.drop(this.oldest);
      this.onEvict();
    }
    return t;
  }

  /**
   * Puts back what a batch of an earlier process took (its journal record, ledger-journal.ts), as of
   * `atMs`: the spans, and the calls in the state the record gives (arguments are not kept: an id-less
   * sighting pairs with a restored call by name). Records are replayed oldest first, so a later
   * record's state of a call wins.
   */
  remember(
    traceId: string,
    atMs: number,
    spans: readonly string[],
    calls: readonly (readonly [string, RecordedCall])[],
  ): void {
    const t = this.trace(traceId, atMs, []);
    for (const s of spans) {
      const cut = s.indexOf('\u0000');
      if (cut < 0) t.spans.set(s, ANY_SERVICE);
      else addService(t.spans, s.slice(0, cut), s.slice(cut + 1));
    }
    for (const [key, c] of calls) {
      const e = t.calls.get(key);
      if (key === OVERFLOW_KEY) t.overflowed = true;
      else if (e) Object.assign(e, c);
      else if (t.calls.size < this.opts.maxCallsPerTrace) {
        t.calls.set(
          key,
          Object.assign(callEntry(c.name, undefined, c.hasId, c.executed, c.fromExecution, c.summary), c),
        );
      } else t.overflowed = true;
    }
  }

  /** @internal */ get maxCallsPerTrace(): number {
    return this.opts.maxCallsPerTrace;
  }

  private expire(nowMs: number): void {
    for (let t = this.oldest; t && nowMs - t.touchedMs > this.opts.traceTtlMs; t = this.oldest) {
      this.drop(t);
      this.onEvict();
    }
  }

  private append(t: TraceState): void {
    t.older = this.newest;
    t.newer = undefined;
    if (this.newest) this.newest.newer = t;
    else this.oldest = t;
    this.newest = t;
  }

  private unlink(t: TraceState): void {
    if (t.older) t.older.newer = t.newer;
    else this.oldest = t.newer;
    if (t.newer) t.newer.older = t.older;
    else this.newest = t.older;
    t.older = t.newer = undefined;
  }

  private drop(t: TraceState): void {
    this.traces.delete(t.id);
    this.unlink(t);
  }
}

export class LedgerTxn {
  private readonly undoLog: (() => void)[] = [];
  /** What this batch took, per trace, for its journal record (taken()). */
  private readonly takenIn = new Map<string, TakenInTrace>();
  /** Where each call entry this batch reached lives: its trace and key. */
  private readonly located = new Map<CallEntry, [string, string]>();
  /** What this batch took, marked unsettled until commit() or rollback(). */
  private readonly held: [TraceState, string][] = [];
  private done!: () => void;
  /** Resolves when the batch's store write committed or was refused. */
  readonly settled = new Promise<void>((resolve) => (this.done = resolve));

  constructor(
    private readonly ledger: Ledger,
    private readonly nowMs: number,
  ) {}

  private hold(t: TraceState, key: string): void {
    (t.unsettled ??= new Map()).set(key, this);
    this.held.push([t, key]);
  }

  private takenOf(traceId: string): TakenInTrace {
    let x = this.takenIn.get(traceId);
    if (!x) this.takenIn.set(traceId, (x = { traceId, spans: [], calls: new Map() }));
    return x;
  }

  /** The batch changed this entry: it goes into the journal record in its state at commit. */
  private touched(entry: CallEntry): void {
    const at = this.located.get(entry);
    if (at) this.takenOf(at[0]).calls.set(at[1], entry);
  }

  /** What this batch took, per trace (its record in the dedupe journal); empty when it took nothing. */
  taken(): Iterable<TakenInTrace> {
    return this.takenIn.values();
  }

  /** Claims a span of a service; false when that service's span was already taken (a resent batch). */
  claimSpan(traceId: string, spanId: string, service = ''): boolean {
    const t = this.ledger.trace(traceId, this.nowMs, this.undoLog);
    const before = t.spans.get(spanId);
    if (takenBy(before, service)) return false;
    addService(t.spans, spanId, service);
    this.undoLog.push(() => {
      if (before === undefined) t.spans.delete(spanId);
      else t.spans.set(spanId, before);
    });
    // Held by span id alone: a span of another service under the same ids waits for this batch, no more.
    this.hold(t, spanId);
    this.takenOf(traceId).spans.push(spanKey(spanId, service));
    return true;
  }

  /** The batch is durably recorded: what it took is settled. */
  commit(): void {
    this.release();
  }

  get(traceId: string, key: string): CallEntry | undefined {
    const e = this.ledger.trace(traceId, this.nowMs, this.undoLog).calls.get(key);
    if (e) this.located.set(e, [traceId, key]);
    return e;
  }

  /**
   * Records a call; false past the per-trace cap, where the trace is marked overflowed instead (a
   * proposal is still counted, a tool-span-only call is not: see the file comment).
   */
  add(traceId: string, key: string, entry: CallEntry): boolean {
    const t = this.ledger.trace(traceId, this.nowMs, this.undoLog);
    if (t.calls.size >= this.ledger.maxCallsPerTrace) {
      if (!t.overflowed) {
        t.overflowed = true;
        this.undoLog.push(() => {
          t.overflowed = false;
        });
        this.takenOf(traceId).overflowed = true;
      }
      return false;
    }
    t.calls.set(key, entry);
    this.undoLog.push(() => t.calls.delete(key));
    this.hold(t, `\u0001${key}`);
    this.located.set(entry, [traceId, key]);
    this.takenOf(traceId).calls.set(key, entry);
    return true;
  }

  /** The trace's call cap was reached: a tool span of a call the ledger does not know is taken as seen. */
  overflowed(traceId: string): boolean {
    return this.ledger.trace(traceId, this.nowMs, this.undoLog).overflowed;
  }

  /** A proposal arrived for a call known from its tool span: pair them. */
  claimOrphan(entry: CallEntry): void {
    this.touched(entry);
    entry.fromExecution = false;
    this.undoLog.push(() => {
      entry.fromExecution = true;
    });
    const p = entry.pending;
    if (p) {
      const k = pendingKey(p.traceId, p.key);
      const held = this.ledger.pending.get(k);
      this.ledger.pending.delete(k);
      entry.pending = undefined;
      this.undoLog.push(() => {
        entry.pending = p;
        if (held) this.ledger.restore([p], this.nowMs);
      });
    }
  }

  /**
   * Changes what a waiting call will be counted as, keeping its due time: a proposal that waits for
   * its tool span's schema takes over an agent span's summary of the same call. Returns the pending
   * call to persist again, undefined when the entry waits for nothing.
   */
  replacePending(entry: CallEntry, call: CallToCount): PendingCall | undefined {
    const p = entry.pending;
    if (!p) return undefined;
    this.touched(entry);
    const before = p.call;
    p.call = call;
    this.undoLog.push(() => {
      p.call = before;
    });
    return p;
  }

  /** The calls read from GenAI log records that wait for this span (merge: releaseForSpan). */
  heldForSpan(traceId: string, spanId: string): CallEntry[] {
    const t = this.ledger.known(traceId);
    if (!t) return [];
    let out: CallEntry[] | undefined;
    for (const [key, e] of t.calls) {
      const p = e.pending;
      if (p === undefined || p.call.heldFor !== 'span' || p.call.spanId !== spanId) continue;
      this.located.set(e, [traceId, key]);
      (out ??= []).push(e);
    }
    return out ?? [];
  }

  /** Holds a tool-span-only call until its grace period ends. */
  defer(entry: CallEntry, p: PendingCall): void {
    entry.pending = p;
    p.entry = entry;
    const k = pendingKey(p.traceId, p.key);
    this.ledger.pending.set(k, { entry, p });
    this.undoLog.push(() => {
      entry.pending = undefined;
      this.ledger.pending.delete(k);
    });
  }

  markExecuted(entry: CallEntry): void {
    if (entry.executed) return;
    this.touched(entry);
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
  findUnpaired(
    traceId: string,
    name: string,
    argsRaw: string | undefined,
    want: (e: CallEntry) => boolean,
  ): CallEntry | undefined {
    const t = this.ledger.trace(traceId, this.nowMs, this.undoLog);
    let byName: [string, CallEntry] | undefined;
    for (const kv of t.calls) {
      const e = kv[1];
      if (e.name !== name || !want(e)) continue;
      if (argsRaw !== undefined && e.argsRaw !== undefined && sameArgs(e.argsRaw, argsRaw)) {
        this.located.set(e, [traceId, kv[0]]);
        return e;
      }
      byName ??= kv;
    }
    if (!byName) return undefined;
    this.located.set(byName[1], [traceId, byName[0]]);
    return byName[1];
  }

  rollback(): void {
    for (let i = this.undoLog.length - 1; i >= 0; i--) this.undoLog[i]!();
    this.undoLog.length = 0;
    this.release();
  }

  private release(): void {
    for (const [t, key] of this.held) {
      const m = t.unsettled;
      if (m?.get(key) !== this) continue;
      m.delete(key);
      if (m.size === 0) t.unsettled = undefined;
    }
    this.held.length = 0;
    this.done();
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

/** Notes that `service` took the span (a new array when a second service did: the old value may be in an undo). */
function addService(spans: Map<string, string | string[]>, spanId: string, service: string): void {
  const v = spans.get(spanId);
  if (v === undefined || v === ANY_SERVICE) spans.set(spanId, service);
  else if (!takenBy(v, service)) spans.set(spanId, Array.isArray(v) ? [...v, service] : [v, service]);
}
