/**
 * One batch's changes to the dedupe memory (ledger.ts), undone if its store write is refused, and
 * held (`settled`) until then: a resend of the batch waits for the original instead of being taken for
 * a duplicate of something never stored. What it took per trace is its journal record (taken()).
 */
import { CALL, h64, hashKey, hashKeyAndFirst, hFirst, pairOf, SPAN } from './dedupe-hash.js';
import { ANY_SERVICE_SPANS, NONE, OVERFLOWED } from './dedupe-tables.js';
import type { CallToCount } from './merge.js';
import {
  ANY_SERVICE,
  type CallEntry,
  holdKey,
  type Ledger,
  type PendingCall,
  pendingKey,
  type TakenInTrace,
} from './ledger.js';

/** findUnpaired's list of a trace's calls of one name (oldest last), reused: the merge never re-enters it. */
const NAMED: number[] = [];

/** Batches begun so far (LedgerTxn.serial). */
let serials = 0;

export class LedgerTxn {
  private readonly undoLog: (() => void)[] = [];
  /** What this batch took, per trace, for its journal record (taken()). */
  private readonly takenIn = new Map<string, TakenInTrace>();
  /** This batch's number: the entries it reached carry it, with their trace (CallEntry.reachedBy). */
  private readonly serial = ++serials;
  /** Hold keys (Ledger.holds) this batch set, until commit() or rollback(). */
  private readonly held: number[] = [];
  /** Entries this batch made live (Ledger.live), let go of when it settles. */
  private readonly kept: CallEntry[] = [];
  private done!: () => void;
  /** Resolves when the batch's store write committed or was refused. */
  readonly settled = new Promise<void>((resolve) => (this.done = resolve));

  constructor(
    private readonly ledger: Ledger,
    private readonly nowMs: number,
  ) {}

  /** Holds a key (hash khi, klo) of the trace whose id hashes to (thi, tlo): see holdKey. */
  private hold(thi: number, tlo: number, khi: number, klo: number): void {
    const k = holdKey(thi, tlo, khi, klo);
    this.ledger.holds.set(k, this);
    this.held.push(k);
  }

  /** `s`: the trace's slot, when at hand (its record then keeps the trace id's hash). */
  private takenOf(traceId: string, s?: number): TakenInTrace {
    let x = this.takenIn.get(traceId);
    if (!x) {
      x = { traceId, spans: [], calls: new Set() };
      if (s !== undefined) {
        x.hi = this.ledger.tables.tHi[s]!;
        x.lo = this.ledger.tables.tLo[s]!;
      }
      this.takenIn.set(traceId, x);
    }
    return x;
  }

  /** The batch changed this entry: it goes into the journal record in its state at commit. */
  private touched(entry: CallEntry): void {
    if (entry.reachedBy === this.serial) this.takenOf(entry.reachedIn!).calls.add(entry);
  }

  /** This batch reached the entry, in this trace (see touched). */
  private reached(entry: CallEntry, traceId: string): void {
    entry.reachedBy = this.serial;
    entry.reachedIn = traceId;
  }

  /** The object of call slot k, live until this batch settles. */
  private keep(k: number): CallEntry {
    const live = this.ledger.live;
    let e = live.get(k);
    if (!e) {
      e = this.ledger.entryAt(k);
      live.set(k, e);
      this.kept.push(e);
    }
    return e;
  }

  /** What this batch took, per trace (its record in the dedupe journal); empty when it took nothing. */
  taken(): Iterable<TakenInTrace> {
    return this.takenIn.values();
  }

  /** Claims a span of a service; false when that service's span was already taken (a resent batch). */
  claimSpan(traceId: string, spanId: string, service = ''): boolean {
    const { ledger } = this;
    const s = ledger.slot(traceId, this.nowMs, this.undoLog);
    const t = ledger.tables;
    const thi = t.tHi[s]!;
    const tlo = t.tLo[s]!;
    // The span's key (id and service), and the id's alone for its hold.
    hashKeyAndFirst(SPAN, spanId, service);
    const hi = h64[0]!;
    const lo = h64[1]!;
    const idHi = hFirst[0]!;
    const idLo = hFirst[1]!;
    if (t.hasSpan(s, hi, lo)) return false;
    if (t.tFlags[s]! & ANY_SERVICE_SPANS) {
      hashKey(SPAN, spanId, ANY_SERVICE);
      if (t.hasSpan(s, h64[0]!, h64[1]!)) return false;
    }
    t.addSpan(s, hi, lo);
    this.undoLog.push(() => {
      if (t.holds(s, thi, tlo)) t.removeSpan(s, hi, lo);
    });
    // Held by span id alone: a span of another service under the same ids waits for this batch, no more.
    this.hold(thi, tlo, idHi, idLo);
    this.takenOf(traceId, s).spans.push(hi, lo);
    return true;
  }

  /** The batch is durably recorded: what it took is settled. */
  commit(): void {
    this.release();
  }

  get(traceId: string, key: string): CallEntry | undefined {
    const s = this.ledger.slot(traceId, this.nowMs, this.undoLog);
    hashKey(CALL, key);
    const k = this.ledger.tables.findCall(s, h64[0]!, h64[1]!);
    if (k === NONE) return undefined;
    const e = this.keep(k);
    this.reached(e, traceId);
    return e;
  }

  /**
   * Records a call; false past the per-trace cap, where the trace is marked overflowed instead (a
   * proposal is still counted, a tool-span-only call is not: see ledger.ts).
   */
  add(traceId: string, key: string, entry: CallEntry): boolean {
    const { ledger } = this;
    const s = ledger.slot(traceId, this.nowMs, this.undoLog);
    const t = ledger.tables;
    const thi = t.tHi[s]!;
    const tlo = t.tLo[s]!;
    if (t.tCount[s]! >= ledger.maxCallsPerTrace) {
      if (!(t.tFlags[s]! & OVERFLOWED)) {
        t.tFlags[s]! |= OVERFLOWED;
        this.undoLog.push(() => {
          if (t.holds(s, thi, tlo)) t.tFlags[s]! &= ~OVERFLOWED;
        });
        this.takenOf(traceId, s).overflowed = true;
      }
      return false;
    }
    hashKey(CALL, key);
    const khi = h64[0]!;
    const klo = h64[1]!;
    const k = ledger.place(s, khi, klo, entry);
    this.kept.push(entry);
    this.undoLog.push(() => {
      if (!ledger.valid(entry)) return;
      ledger.live.release(k, entry);
      t.removeCall(s, k);
      entry.at = NONE;
    });
    this.hold(thi, tlo, khi, klo);
    this.reached(entry, traceId);
    this.takenOf(traceId, s).calls.add(entry);
    return true;
  }

  /** The trace's call cap was reached: a tool span of a call the ledger does not know is taken as seen. */
  overflowed(traceId: string): boolean {
    const s = this.ledger.slot(traceId, this.nowMs, this.undoLog);
    return (this.ledger.tables.tFlags[s]! & OVERFLOWED) !== 0;
  }

  /** A proposal arrived for a call known from its tool span: pair them. */
  claimOrphan(entry: CallEntry): void {
    const { ledger } = this;
    this.touched(entry);
    entry.fromExecution = false;
    ledger.write(entry);
    this.undoLog.push(() => {
      entry.fromExecution = true;
      ledger.write(entry);
    });
    const p = entry.pending;
    if (p) {
      const k = pendingKey(p.traceId, p.key);
      const held = ledger.pending.get(k);
      ledger.pending.delete(k);
      entry.pending = undefined;
      this.undoLog.push(() => {
        entry.pending = p;
        if (held) ledger.restore([p], this.nowMs);
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
    const { ledger } = this;
    if (ledger.live.size === 0) return [];
    const s = ledger.known(traceId);
    if (s === NONE) return [];
    let out: CallEntry[] | undefined;
    const t = ledger.tables;
    for (let k = t.tCalls[s]!; k !== NONE; k = t.cNext[k]!) {
      const e = ledger.live.get(k);
      const p = e?.pending;
      if (p === undefined || p.call.heldFor !== 'span' || p.call.spanId !== spanId) continue;
      this.reached(e!, traceId);
      (out ??= []).push(e!);
    }
    return out ? out.reverse() : [];
  }

  /** Holds a tool-span-only call until its grace period ends. */
  defer(entry: CallEntry, p: PendingCall): void {
    const { ledger } = this;
    entry.pending = p;
    p.entry = entry;
    const k = pendingKey(p.traceId, p.key);
    ledger.pending.set(k, { entry, p });
    this.undoLog.push(() => {
      entry.pending = undefined;
      ledger.pending.delete(k);
    });
  }

  markExecuted(entry: CallEntry): void {
    if (entry.executed) return;
    this.touched(entry);
    entry.executed = true;
    this.ledger.write(entry);
    this.undoLog.push(() => {
      entry.executed = false;
      this.ledger.write(entry);
    });
  }

  /**
   * Finds a counted call of this trace that an id-less sighting belongs to: same name and arguments
   * (by hash, whitespace aside) first, else the oldest by name. Pairing by name alone may swap two
   * parallel calls of one tool, but each is still counted exactly once, which is what the numbers need.
   */
  findUnpaired(
    traceId: string,
    name: string,
    argsRaw: string | undefined,
    want: (e: CallEntry) => boolean,
  ): CallEntry | undefined {
    const { ledger } = this;
    const s = ledger.slot(traceId, this.nowMs, this.undoLog);
    const t = ledger.tables;
    if (t.tCalls[s] === NONE) return undefined;
    const wanted = pairOf(name, argsRaw);
    const nh = wanted >>> 10;
    const ah = wanted & 0x3ff;
    // The trace's calls of this name, from its chain (newest first) into a reused list: most
    // sightings (a new call with an id) find none, and pay neither a list nor an entry object.
    const named = NAMED;
    named.length = 0;
    for (let k = t.tCalls[s]!; k !== NONE; k = t.cNext[k]!) if (t.cPair[k]! >>> 10 === nh) named.push(k);
    let byName: CallEntry | undefined;
    for (let j = named.length - 1; j >= 0; j--) {
      const k = named[j]!;
      const e = this.keep(k);
      if (!want(e)) continue;
      if (ah !== 0 && (t.cPair[k]! & 0x3ff) === ah) {
        this.reached(e, traceId);
        return e;
      }
      byName ??= e;
    }
    if (byName) this.reached(byName, traceId);
    return byName;
  }

  rollback(): void {
    for (let i = this.undoLog.length - 1; i >= 0; i--) this.undoLog[i]!();
    this.undoLog.length = 0;
    this.release();
  }

  private release(): void {
    const { holds } = this.ledger;
    for (const k of this.held) holds.release(k, this);
    this.held.length = 0;
    for (const e of this.kept) this.ledger.release(e);
    this.kept.length = 0;
    this.done();
  }
}
