/**
 * The dedupe memory's storage: a few typed arrays in all, no object per trace, span or call (README:
 * the half-load tail was the major GC marking millions of small objects). Three pools of columns:
 *
 * - traces (at most maxTraces): the trace id's 64-bit hash, when last touched, neighbours in recency
 *   order (least recently touched evicted first), the heads of its span and call chains, its call
 *   count and flags; found through an open-addressing index (linear probing, backward-shift deletion);
 * - spans: a 64-bit hash of span id + service, chained per trace;
 * - calls: a 64-bit hash of the call key, its state (flags, outcome, model), a hash of its tool name
 *   and arguments (pairOf: to pair an id-less tool span), chained per trace.
 *
 * Span and call pools are sized for SPANS_PER_TRACE and CALLS_PER_TRACE per trace on average; when one
 * is full the least recently touched trace is forgotten to make room (the one being written to never:
 * a single huge trace grows the pool instead, as its maps did before). Pools start small and double
 * up to their size, so an idle process holds little. Slots are reused: a holder of a slot number
 * checks the hash it expects before writing (see Ledger).
 */

import { grown } from '../util/typed-arrays.js';
import { insertSlot, removeSlot } from './slot-index.js';

export const NONE = -1;
/** Pool sizes per remembered trace (the sizing rule in docs/performance.md reads these). */
export const SPANS_PER_TRACE = 6;
export const CALLS_PER_TRACE = 3.5;
const FIRST = 1024;
/** Seven Int32 columns, one Float64, one Uint8. */
const TRACE_BYTES = 7 * 4 + 8 + 1;
/** A trace's flags. */
export const OVERFLOWED = 1;
/** Holds spans restored from a record that named no service (any service's resend is a duplicate). */
export const ANY_SERVICE_SPANS = 2;

export class DedupeTables {
  // traces
  private tCap: number;
  tHi: Int32Array;
  tLo: Int32Array;
  tTouched: Float64Array;
  private tOlder: Int32Array;
  private tNewer: Int32Array;
  tSpans: Int32Array;
  tCalls: Int32Array;
  tCount: Int32Array;
  tFlags: Uint8Array;
  private index: Int32Array;
  private tFree = NONE;
  private tUsed = 0;
  size = 0;
  oldest = NONE;
  newest = NONE;
  // spans
  private sCap: number;
  sHi: Int32Array;
  sLo: Int32Array;
  sNext: Int32Array;
  private sFree = NONE;
  private sUsed = 0;
  spans = 0;
  // calls
  private cCap: number;
  cHi: Int32Array;
  cLo: Int32Array;
  cNext: Int32Array;
  cVal: Int32Array;
  /** pairOf(name, arguments). */
  cPair: Int32Array;
  private cFree = NONE;
  private cUsed = 0;
  calls = 0;
  private readonly spanLimit: number;
  private readonly callLimit: number;

  constructor(
    private readonly maxTraces: number,
    /** Called before a trace is forgotten to make room (not by drop()): its slot is still readable. */
    private readonly onEvict: (slot: number) => void,
  ) {
    this.spanLimit = Math.ceil(maxTraces * SPANS_PER_TRACE);
    this.callLimit = Math.ceil(maxTraces * CALLS_PER_TRACE);
    this.tCap = Math.min(maxTraces, FIRST);
    this.tHi = new Int32Array(this.tCap);
    this.tLo = new Int32Array(this.tCap);
    this.tTouched = new Float64Array(this.tCap);
    this.tOlder = new Int32Array(this.tCap);
    this.tNewer = new Int32Array(this.tCap);
    this.tSpans = new Int32Array(this.tCap);
    this.tCalls = new Int32Array(this.tCap);
    this.tCount = new Int32Array(this.tCap);
    this.tFlags = new Uint8Array(this.tCap);
    this.index = new Int32Array(indexSize(this.tCap));
    this.sCap = Math.min(this.spanLimit, FIRST);
    this.sHi = new Int32Array(this.sCap);
    this.sLo = new Int32Array(this.sCap);
    this.sNext = new Int32Array(this.sCap);
    this.cCap = Math.min(this.callLimit, FIRST);
    this.cHi = new Int32Array(this.cCap);
    this.cLo = new Int32Array(this.cCap);
    this.cNext = new Int32Array(this.cCap);
    this.cVal = new Int32Array(this.cCap);
    this.cPair = new Int32Array(this.cCap);
  }

  /** Bytes of every typed array the memory holds (what the byte budget per trace counts). */
  get bytes(): number {
    const t = this.tCap * TRACE_BYTES + this.index.byteLength;
    return t + this.sCap * 12 + this.cCap * 20;
  }

  /** The bytes the memory holds once full at its default pool sizes, per trace (docs/performance.md). */
  static bytesPerTraceFull(maxTraces: number): number {
    const t = maxTraces * TRACE_BYTES + indexSize(maxTraces) * 4;
    return (t + Math.ceil(maxTraces * SPANS_PER_TRACE) * 12 + Math.ceil(maxTraces * CALLS_PER_TRACE) * 20) / maxTraces;
  }

  // ------------------------------------------------------------------ traces

  find(hi: number, lo: number): number {
    const m = this.index.length - 1;
    for (let i = lo & m; ; i = (i + 1) & m) {
      const v = this.index[i]!;
      if (v === 0) return NONE;
      const s = v - 1;
      if (this.tLo[s] === lo && this.tHi[s] === hi) return s;
    }
  }

  /** A new trace, the most recently touched; the least recently touched is forgotten past maxTraces. */
  create(hi: number, lo: number, nowMs: number): number {
    while (this.size >= this.maxTraces && this.oldest !== NONE) {
      const s = this.oldest;
      this.onEvict(s);
      this.drop(s);
    }
    let s = this.tFree;
    if (s !== NONE) this.tFree = this.tNewer[s]!;
    else {
      if (this.tUsed === this.tCap) this.growTraces();
      s = this.tUsed++;
    }
    this.tHi[s] = hi;
    this.tLo[s] = lo;
    this.tTouched[s] = nowMs;
    this.tSpans[s] = NONE;
    this.tCalls[s] = NONE;
    this.tCount[s] = 0;
    this.tFlags[s] = 0;
    this.size++;
    this.link(s);
    insertSlot(this.index, this.tLo, s);
    return s;
  }

  touch(s: number, nowMs: number): void {
    this.tTouched[s] = nowMs;
    if (this.newest === s) return;
    this.unlink(s);
    this.link(s);
  }

  /** Forgets a trace and frees its spans and calls. */
  drop(s: number): void {
    for (let k = this.tSpans[s]!; k !== NONE; ) {
      const n = this.sNext[k]!;
      this.sNext[k] = this.sFree;
      this.sFree = k;
      this.spans--;
      k = n;
    }
    for (let k = this.tCalls[s]!; k !== NONE; ) {
      const n = this.cNext[k]!;
      this.cNext[k] = this.cFree;
      this.cHi[k] = this.cLo[k] = 0; // a holder of this slot number no longer matches
      this.cFree = k;
      this.calls--;
      k = n;
    }
    removeSlot(this.index, this.tLo, s);
    this.unlink(s);
    this.tHi[s] = this.tLo[s] = 0;
    this.tNewer[s] = this.tFree;
    this.tFree = s;
    this.size--;
  }

  /** The trace in slot `s` is still the one with this hash (not forgotten, the slot not reused). */
  holds(s: number, hi: number, lo: number): boolean {
    return this.tHi[s] === hi && this.tLo[s] === lo && this.find(hi, lo) === s;
  }

  // ------------------------------------------------------------------ spans

  hasSpan(s: number, hi: number, lo: number): boolean {
    for (let k = this.tSpans[s]!; k !== NONE; k = this.sNext[k]!)
      if (this.sLo[k] === lo && this.sHi[k] === hi) return true;
    return false;
  }

  addSpan(s: number, hi: number, lo: number): void {
    if (this.sFree === NONE && this.sUsed === this.sCap) this.makeRoom(s, true);
    let k = this.sFree;
    if (k !== NONE) this.sFree = this.sNext[k]!;
    else k = this.sUsed++;
    this.sHi[k] = hi;
    this.sLo[k] = lo;
    this.sNext[k] = this.tSpans[s]!;
    this.tSpans[s] = k;
    this.spans++;
  }

  removeSpan(s: number, hi: number, lo: number): void {
    let prev = NONE;
    for (let k = this.tSpans[s]!; k !== NONE; prev = k, k = this.sNext[k]!) {
      if (this.sLo[k] !== lo || this.sHi[k] !== hi) continue;
      if (prev === NONE) this.tSpans[s] = this.sNext[k]!;
      else this.sNext[prev] = this.sNext[k]!;
      this.sNext[k] = this.sFree;
      this.sFree = k;
      this.spans--;
      return;
    }
  }

  // ------------------------------------------------------------------ calls

  findCall(s: number, hi: number, lo: number): number {
    for (let k = this.tCalls[s]!; k !== NONE; k = this.cNext[k]!)
      if (this.cLo[k] === lo && this.cHi[k] === hi) return k;
    return NONE;
  }

  addCall(s: number, hi: number, lo: number, val: number, pair: number): number {
    if (this.cFree === NONE && this.cUsed === this.cCap) this.makeRoom(s, false);
    let k = this.cFree;
    if (k !== NONE) this.cFree = this.cNext[k]!;
    else k = this.cUsed++;
    this.cHi[k] = hi;
    this.cLo[k] = lo;
    this.cVal[k] = val;
    this.cPair[k] = pair;
    this.cNext[k] = this.tCalls[s]!;
    this.tCalls[s] = k;
    this.tCount[s]!++;
    this.calls++;
    return k;
  }

  removeCall(s: number, k: number): void {
    let prev = NONE;
    for (let j = this.tCalls[s]!; j !== NONE; prev = j, j = this.cNext[j]!) {
      if (j !== k) continue;
      if (prev === NONE) this.tCalls[s] = this.cNext[k]!;
      else this.cNext[prev] = this.cNext[k]!;
      this.cNext[k] = this.cFree;
      this.cHi[k] = this.cLo[k] = 0;
      this.cFree = k;
      this.tCount[s]!--;
      this.calls--;
      return;
    }
  }

  // ------------------------------------------------------------------ internals

  /** A pool is full: grow it up to its size, else forget the least recently touched traces but `keep`. */
  private makeRoom(keep: number, spans: boolean): void {
    const cap = spans ? this.sCap : this.cCap;
    const limit = spans ? this.spanLimit : this.callLimit;
    if (cap < limit) {
      this.growPool(spans, Math.min(limit, cap * 2));
      return;
    }
    const free = () => (spans ? this.sFree : this.cFree) !== NONE;
    while (!free() && this.oldest !== NONE && this.oldest !== keep) {
      const s = this.oldest;
      this.onEvict(s);
      this.drop(s);
    }
    if (!free()) this.growPool(spans, cap * 2);
  }

  private growPool(spans: boolean, n: number): void {
    if (spans) {
      this.sHi = grown(this.sHi, n);
      this.sLo = grown(this.sLo, n);
      this.sNext = grown(this.sNext, n);
      this.sCap = n;
    } else {
      this.cHi = grown(this.cHi, n);
      this.cLo = grown(this.cLo, n);
      this.cNext = grown(this.cNext, n);
      this.cVal = grown(this.cVal, n);
      this.cPair = grown(this.cPair, n);
      this.cCap = n;
    }
  }

  private growTraces(): void {
    const n = Math.min(this.maxTraces, this.tCap * 2);
    this.tHi = grown(this.tHi, n);
    this.tLo = grown(this.tLo, n);
    this.tTouched = grown(this.tTouched, n);
    this.tOlder = grown(this.tOlder, n);
    this.tNewer = grown(this.tNewer, n);
    this.tSpans = grown(this.tSpans, n);
    this.tCalls = grown(this.tCalls, n);
    this.tCount = grown(this.tCount, n);
    this.tFlags = grown(this.tFlags, n);
    this.tCap = n;
    this.index = new Int32Array(indexSize(n));
    for (let s = this.oldest; s !== NONE; s = this.tNewer[s]!) insertSlot(this.index, this.tLo, s);
  }

  private link(s: number): void {
    this.tOlder[s] = this.newest;
    this.tNewer[s] = NONE;
    if (this.newest !== NONE) this.tNewer[this.newest] = s;
    else this.oldest = s;
    this.newest = s;
  }

  private unlink(s: number): void {
    const o = this.tOlder[s]!;
    const n = this.tNewer[s]!;
    if (o !== NONE) this.tNewer[o] = n;
    else this.oldest = n;
    if (n !== NONE) this.tOlder[n] = o;
    else this.newest = o;
  }
}

/** A power of two at least 5/4 of the traces (load ≤ 0.8: a hit is ~3 probes away, linear probing). */
function indexSize(traces: number): number {
  let n = 16;
  while (n * 4 < traces * 5) n *= 2;
  return n;
}
