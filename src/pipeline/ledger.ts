/**
 * One call, one count (README: How calls are found and counted), across export batches: remembers, per trace, which
 * tool-bearing spans were already taken and which calls were already counted. Bounded: at most
 * `maxTraces` traces (least recently touched evicted first, and any idle longer than the TTL),
 * at most `maxCallsPerTrace` calls each. Every change made while a batch is being recorded can be
 * undone, so a batch the store refused (503) is counted in full when the client sends it again.
 *
 * What is remembered lives in typed arrays (dedupe-tables.ts) as 64-bit hashes (dedupe-hash.ts), a
 * few objects in all. A call is handed out as a CallEntry object only while something works on it:
 * a batch not yet settled (ledger-txn.ts) or a call waiting out its grace period (kept apart, in
 * `pending` and `live`, with its PendingCall); its state is written back to the arrays.
 *
 * A trace past its call cap is marked overflowed (and the mark is journalled): a call counted then is
 * not remembered, so a tool span of a call the ledger does not know, in that trace, may be the
 * execution of such a call and is taken as seen, never counted on its own. The cap may so miss a
 * tool-span-only call of a huge trace, but never counts one call twice.
 */
import { OUTCOMES } from '../model.js';
import { CALL, h64, hashJoined, hashKey, pairOf, SPAN, TRACE } from './dedupe-hash.js';
import { DedupeTables, NONE, OVERFLOWED, ANY_SERVICE_SPANS } from './dedupe-tables.js';
import { IntTable } from './int-table.js';
import { LedgerTxn } from './ledger-txn.js';
import {
  type CallEntry,
  callEntry,
  EXECUTED,
  FROM_EXECUTION,
  flagsOf,
  HAS_ID,
  MODEL_SHIFT,
  OUTCOME_MASK,
  OUTCOME_SHIFT,
  type PendingCall,
  type RememberedTrace,
  SUMMARY,
} from './ledger-entry.js';

export { LedgerTxn } from './ledger-txn.js';
export * from './ledger-entry.js';

export interface LedgerOptions {
  maxTraces: number;
  maxCallsPerTrace: number;
  traceTtlMs: number;
}

/** A span restored from a record that named no service: the service its key is hashed with. */
export const ANY_SERVICE = '\u0000*';

/** Tool names kept to give entries their name back (pairing itself compares name hashes only). */
const NAMES_KEPT = 4096;

export class Ledger {
  /** @internal */ readonly tables: DedupeTables;
  /** @internal In due order (the grace period is constant). */ readonly pending = new Map<
    string,
    { entry: CallEntry; p: PendingCall }
  >();
  /**
   * @internal The objects of calls something works on, by call slot: waiting calls and unsettled
   * batches' calls. An IntTable, not a Map: each batch fills and empties it (int-table.ts).
   */
  readonly live = new IntTable<CallEntry>();
  /**
   * @internal Spans (by id) and call keys of a trace held by an unsettled batch, by holdKey: a small
   * number, no string built per claim. Two holds under one number only make a batch wait for an
   * unrelated one to settle, never decide a duplicate.
   */
  readonly holds = new IntTable<LedgerTxn>();
  private readonly models: string[] = [];
  private readonly modelIndex = new Map<string, number>();
  private readonly names = new Map<number, string>();
  private lastTrace: string | undefined;
  private lastHi = 0;
  private lastLo = 0;

  constructor(
    private readonly opts: LedgerOptions,
    private readonly onEvict: () => void = () => {},
  ) {
    this.tables = new DedupeTables(opts.maxTraces, (s) => this.evicted(s));
  }

  get size(): number {
    return this.tables.size;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Bytes the memory's arrays hold now. */
  get bytes(): number {
    return this.tables.bytes;
  }

  /** Removes and returns the pending calls due by nowMs; their entries count as settled. */
  takeDue(nowMs: number): PendingCall[] {
    const due: PendingCall[] = [];
    for (const [k, { entry, p }] of this.pending) {
      if (p.dueMs > nowMs) break;
      this.pending.delete(k);
      entry.pending = undefined;
      this.release(entry);
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
    const superseded: PendingCall[] = [];
    for (const p of items) {
      const s = this.slot(p.traceId, nowMs, []);
      hashKey(CALL, p.key);
      const hi = h64[0]!;
      const lo = h64[1]!;
      const k = this.tables.findCall(s, hi, lo);
      let entry: CallEntry;
      if (k === NONE) {
        const c = p.call;
        const argsRaw = c.args.kind === 'none' ? undefined : c.args.raw;
        // Only a summary's waiting call is not from an execution (merge: takeSummary); its tool span may still come.
        entry = c.fromExecution
          ? callEntry(c.name, argsRaw, Boolean(c.callId), true, true)
          : callEntry(c.name, argsRaw, Boolean(c.callId), false, true, true);
        this.place(s, hi, lo, entry);
      } else {
        entry = p.entry && p.entry.at === k && this.valid(p.entry) ? p.entry : this.entryAt(k);
        if (!entry.fromExecution) {
          superseded.push(p);
          continue;
        }
      }
      entry.pending = p;
      p.entry = entry;
      this.live.set(entry.at!, entry);
      this.pending.set(pendingKey(p.traceId, p.key), { entry, p });
    }
    // Keep due order after a put-back.
    const sorted = [...this.pending.entries()].sort((a, b) => a[1].p.dueMs - b[1].p.dueMs);
    this.pending.clear();
    for (const [k, v] of sorted) this.pending.set(k, v);
    return superseded;
  }

  begin(nowMs: number): LedgerTxn {
    this.expire(nowMs);
    return new LedgerTxn(this, nowMs);
  }

  /**
   * The unsettled batch that took this span (`span` kind, by span id) or call key (`call`) of the trace, if
   * another batch than `self` did; a caller awaits its `settled` before deciding about duplicates.
   */
  heldBy(traceId: string, kind: 'span' | 'call', key: string, keyPrefix?: string): LedgerTxn | undefined {
    if (this.holds.size === 0) return undefined;
    this.hashTrace(traceId);
    const thi = h64[0]!;
    const tlo = h64[1]!;
    if (kind === 'span') hashKey(SPAN, key);
    else if (keyPrefix !== undefined) hashJoined(CALL, keyPrefix, key);
    else hashKey(CALL, key);
    return this.holds.get(holdKey(thi, tlo, h64[0]!, h64[1]!));
  }

  /**
   * @internal Leaves the trace id's hash (TRACE) in h64. A batch asks about one trace's spans and
   * calls in a row: the last trace id's hash is kept.
   */
  hashTrace(traceId: string): void {
    if (traceId === this.lastTrace) {
      h64[0] = this.lastHi;
      h64[1] = this.lastLo;
      return;
    }
    hashKey(TRACE, traceId);
    this.lastTrace = traceId;
    this.lastHi = h64[0]!;
    this.lastLo = h64[1]!;
  }

  /** @internal A trace's slot when the ledger has it (NONE otherwise), never creating it. */
  known(traceId: string): number {
    this.hashTrace(traceId);
    return this.tables.find(h64[0]!, h64[1]!);
  }

  /** @internal The trace's slot, touched now; created (undone by `undo`) when new. */
  slot(traceId: string, nowMs: number, undo: (() => void)[]): number {
    this.hashTrace(traceId);
    const hi = h64[0]!;
    const lo = h64[1]!;
    const t = this.tables;
    let s = t.find(hi, lo);
    if (s !== NONE) {
      t.touch(s, nowMs);
      return s;
    }
    s = t.create(hi, lo, nowMs);
    const created = s;
    undo.push(() => {
      if (t.holds(created, hi, lo)) this.forget(created);
    });
    return s;
  }

  /** @internal The object of the call in slot k: the one something works on, else one read from the arrays. */
  entryAt(k: number): CallEntry {
    const e = this.live.get(k);
    if (e) return e;
    const t = this.tables;
    const v = t.cVal[k]!;
    const outcome = (v >>> OUTCOME_SHIFT) & OUTCOME_MASK;
    const entry = callEntry(
      this.names.get(t.cPair[k]! >>> 10) ?? '',
      undefined,
      (v & HAS_ID) !== 0,
      (v & EXECUTED) !== 0,
      (v & FROM_EXECUTION) !== 0,
      v & SUMMARY ? true : undefined,
    );
    if (outcome > 0) {
      entry.outcome = OUTCOMES[outcome - 1];
      entry.model = this.models[v >>> MODEL_SHIFT] ?? '';
    }
    entry.at = k;
    entry.atHi = t.cHi[k]!;
    entry.atLo = t.cLo[k]!;
    entry.pair = t.cPair[k]!;
    return entry;
  }

  /** @internal Remembers a new call of trace slot s under key hash (hi, lo); the entry becomes its object. */
  place(s: number, hi: number, lo: number, entry: CallEntry): number {
    const pair = pairOf(entry.name, entry.argsRaw);
    const name = pair >>> 10;
    if (this.names.size < NAMES_KEPT && !this.names.has(name)) this.names.set(name, entry.name);
    const k = this.tables.addCall(s, hi, lo, this.packState(entry), pair);
    entry.pair = pair;
    entry.at = k;
    entry.atHi = hi;
    entry.atLo = lo;
    this.live.set(k, entry);
    return k;
  }

  /** @internal The entry's slot still holds its call (not forgotten meanwhile). */
  valid(e: CallEntry): boolean {
    const k = e.at ?? NONE;
    return k !== NONE && this.tables.cHi[k] === e.atHi && this.tables.cLo[k] === e.atLo;
  }

  /** @internal Writes the entry's state back to its slot. */
  write(e: CallEntry): void {
    if (this.valid(e)) this.tables.cVal[e.at!] = this.packState(e);
  }

  /** A call was counted (its outcome and model set on its entry): remembered with them. */
  counted(e: CallEntry): void {
    this.write(e);
  }

  /** @internal Lets go of an entry's object unless it still waits. */
  release(e: CallEntry): void {
    const k = e.at ?? NONE;
    if (k !== NONE && e.pending === undefined) this.live.release(k, e);
  }

  packState(e: CallEntry): number {
    let v = flagsOf(e);
    if (e.outcome !== undefined) {
      const m = e.model ?? '';
      let ix = this.modelIndex.get(m);
      if (ix === undefined) {
        ix = this.models.push(m) - 1;
        this.modelIndex.set(m, ix);
      }
      v |= ((OUTCOMES.indexOf(e.outcome) + 1) << OUTCOME_SHIFT) | (ix << MODEL_SHIFT);
    }
    return v;
  }

  /** The model label of a packed state (for the journal). */
  modelOf(state: number): string {
    return this.models[state >>> MODEL_SHIFT] ?? '';
  }

  /**
   * Puts back what a batch of an earlier process took (its journal record, ledger-journal.ts), as of
   * `atMs`: the spans, and the calls in the state the record gives. Records are replayed oldest first,
   * so a later record's state of a call wins.
   */
  remember(r: RememberedTrace, atMs: number): void {
    const t = this.tables;
    let s = t.find(r.hi, r.lo);
    if (s === NONE) s = t.create(r.hi, r.lo, atMs);
    else t.touch(s, atMs);
    for (let i = 0; i < r.spans.length; i += 2)
      if (!t.hasSpan(s, r.spans[i]!, r.spans[i + 1]!)) t.addSpan(s, r.spans[i]!, r.spans[i + 1]!);
    if (r.anyServiceSpans) t.tFlags[s]! |= ANY_SERVICE_SPANS;
    if (r.overflowed) t.tFlags[s]! |= OVERFLOWED;
    const c = r.calls;
    for (let i = 0; i < c.length; i += 4) {
      const hi = c[i]!;
      const lo = c[i + 1]!;
      let state = c[i + 2]!;
      if ((state >>> OUTCOME_SHIFT) & OUTCOME_MASK) {
        const m = r.models[state >>> MODEL_SHIFT] ?? '';
        let ix = this.modelIndex.get(m);
        if (ix === undefined) {
          ix = this.models.push(m) - 1;
          this.modelIndex.set(m, ix);
        }
        state = (state & ((1 << MODEL_SHIFT) - 1)) | (ix << MODEL_SHIFT);
      }
      const k = t.findCall(s, hi, lo);
      if (k !== NONE) t.cVal[k] = state;
      else if (t.tCount[s]! < this.opts.maxCallsPerTrace) t.addCall(s, hi, lo, state, c[i + 3]!);
      else t.tFlags[s]! |= OVERFLOWED;
    }
  }

  /** @internal */ get maxCallsPerTrace(): number {
    return this.opts.maxCallsPerTrace;
  }

  private expire(nowMs: number): void {
    const t = this.tables;
    for (let s = t.oldest; s !== NONE && nowMs - t.tTouched[s]! > this.opts.traceTtlMs; s = t.oldest) {
      this.evicted(s);
      t.drop(s);
    }
  }

  /** A trace is about to be forgotten to make room or for its age: its waiting calls' objects let go of it. */
  private evicted(s: number): void {
    this.detach(s);
    this.onEvict();
  }

  private forget(s: number): void {
    this.detach(s);
    this.tables.drop(s);
  }

  private detach(s: number): void {
    if (this.live.size === 0) return;
    const t = this.tables;
    for (let k = t.tCalls[s]!; k !== NONE; k = t.cNext[k]!) {
      const e = this.live.take(k);
      if (e) e.at = NONE;
    }
  }
}

/**
 * A span id's or call key's hold in a trace, in 30 bits (see Ledger.holds): the trace id's hash (thi,
 * tlo) mixed with the key's (khi, klo: SPAN of the span id alone, or CALL of the call key), which the
 * ledger has at hand when it takes them.
 */
export function holdKey(thi: number, tlo: number, khi: number, klo: number): number {
  const x = Math.imul(klo ^ tlo, 0x9e3779b1);
  const y = Math.imul(khi ^ thi, 0x85ebca6b);
  return (x ^ (y >>> 7) ^ (x >>> 16)) & 0x3fffffff;
}

export const pendingKey = (traceId: string, key: string): string => `${traceId}\u0000${key}`;
