/**
 * The tracker's repair-event bookkeeping, per slot: a trace's failures and what came after them
 * (repairs.ts turns them into repair turns), from its first failure on, bounded per trace. Apart
 * from tracker.ts, whose columns count steps, calls and tokens; this keeps only what repairs need.
 *
 * Kept as columns too — a pool of events, each slot's a linked list in it — rather than an object
 * per event: a trace lives for seconds to a minute, so its events outlived the young generation,
 * while the strings they point to (labels, problem ids) are shared. The events are made objects
 * again only when the trace's repair turns are worked out.
 */
import { grown } from '../util/typed-arrays.js';
import type { RepairEvent } from './repairs.js';

/** At most this many failures and recoveries are kept per trace for its repair turns. */
const MAX_REPAIR_EVENTS = 256;

const EXEC = 1;
const FAILED = 2;

/** Buckets of the filter of traces holding events (a count per bucket). */
const BUCKET_BITS = 15;

/**
 * A trace id's bucket in that filter, from its last four characters (random hex in an OTLP id): an
 * execution that succeeded looks its trace up only when its bucket holds a trace with events.
 */
export function traceBucket(traceId: string): number {
  const n = traceId.length;
  let h = 0;
  for (let i = Math.max(0, n - 4); i < n; i++) h = Math.imul(h, 31) + traceId.charCodeAt(i);
  return (h ^ (h >>> BUCKET_BITS)) & ((1 << BUCKET_BITS) - 1);
}

export class RepairEvents {
  /** Per slot: its first and last event + 1 (0: none), and how many it holds. */
  private first = new Int32Array(0);
  private last = new Int32Array(0);
  private count = new Int32Array(0);
  /** Per event: the next event of its slot (or of the free list) + 1, 0 at the end. */
  private next = new Int32Array(0);
  private timeMs = new Float64Array(0);
  private flags = new Uint8Array(0);
  private readonly tool: (string | undefined)[] = [];
  private readonly service: (string | undefined)[] = [];
  private readonly model: (string | undefined)[] = [];
  private readonly problemId: (string | undefined)[] = [];
  private used = 0;
  private free = 0;
  /** Traces with repair events: executions that succeed are looked up only while there are any. */
  private holding = 0;
  /** Per slot holding events, its trace's bucket; per bucket, how many such slots it has. */
  private bucket = new Int32Array(0);
  private readonly inBucket = new Int32Array(1 << BUCKET_BITS);

  /** Whether any trace holds repair events. */
  get any(): boolean {
    return this.holding !== 0;
  }

  /** Whether a trace of that bucket (traceBucket) may hold repair events. */
  mayHold(bucket: number): boolean {
    return this.inBucket[bucket] !== 0;
  }

  /** Whether the slot holds repair events. */
  has(slot: number): boolean {
    return slot < this.first.length && this.first[slot] !== 0;
  }

  /** The slot's events, in the order they were added; undefined when none. */
  of(slot: number): RepairEvent[] | undefined {
    if (!this.has(slot)) return undefined;
    const out: RepairEvent[] = [];
    for (let e = this.first[slot]! - 1; e >= 0; e = this.next[e]! - 1) {
      const f = this.flags[e]!;
      out.push({
        kind: f & EXEC ? 'exec' : 'call',
        failed: (f & FAILED) !== 0,
        timeMs: this.timeMs[e]!,
        tool: this.tool[e]!,
        service: this.service[e]!,
        model: this.model[e]!,
        problemId: this.problemId[e],
      });
    }
    return out;
  }

  /** `bucket`: traceBucket of the slot's trace id. */
  add(
    slot: number,
    bucket: number,
    kind: RepairEvent['kind'],
    failed: boolean,
    timeMs: number,
    tool: string,
    service: string,
    model: string,
    problemId: string | undefined,
  ): void {
    if (slot >= this.first.length) this.growSlots(slot + 1);
    const n = this.count[slot]!;
    // Bounded: a trace that fails without end keeps its first failures and what came after them.
    if (n >= MAX_REPAIR_EVENTS) return;
    if (n === 0) {
      this.holding++;
      this.bucket[slot] = bucket;
      this.inBucket[bucket]!++;
    }
    const e = this.take();
    this.next[e] = 0;
    this.timeMs[e] = timeMs;
    this.flags[e] = (kind === 'exec' ? EXEC : 0) | (failed ? FAILED : 0);
    this.tool[e] = tool;
    this.service[e] = service;
    this.model[e] = model;
    this.problemId[e] = problemId;
    const last = this.last[slot]! - 1;
    if (last >= 0) this.next[last] = e + 1;
    else this.first[slot] = e + 1;
    this.last[slot] = e + 1;
    this.count[slot] = n + 1;
  }

  /** Forgets a freed slot's events (their strings let go, the events back in the pool). */
  clear(slot: number): void {
    if (!this.has(slot)) return;
    let e = this.first[slot]! - 1;
    for (;;) {
      this.tool[e] = this.service[e] = this.model[e] = this.problemId[e] = undefined;
      const n = this.next[e]! - 1;
      if (n < 0) break;
      e = n;
    }
    this.next[e] = this.free;
    this.free = this.first[slot]!;
    this.first[slot] = this.last[slot] = this.count[slot] = 0;
    this.holding--;
    this.inBucket[this.bucket[slot]!]!--;
  }

  /** An event from the free list, else a new one (the pool doubled when full). */
  private take(): number {
    if (this.free !== 0) {
      const e = this.free - 1;
      this.free = this.next[e]!;
      return e;
    }
    if (this.used === this.next.length) {
      const size = Math.max(256, this.used * 2);
      this.next = grown(this.next, size);
      this.timeMs = grown(this.timeMs, size);
      this.flags = grown(this.flags, size);
    }
    return this.used++;
  }

  private growSlots(n: number): void {
    const size = Math.max(n, this.first.length * 2, 1024);
    for (const k of ['first', 'last', 'count', 'bucket'] as const) this[k] = grown(this[k], size);
  }
}
