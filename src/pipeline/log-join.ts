/**
 * Joins GenAI events that came as log records to the span they belong to (same trace and span id).
 * OpenTelemetry's own instrumentations (opentelemetry-instrumentation-openai-v2 by default) put the
 * model and tokens on the span and every message — so every tool call — in log records exported on
 * their own schedule, before or after the span:
 *
 * - span first: the model spans seen recently (without calls of their own) are remembered, bounded,
 *   and a log record's calls take the model (and offered tools) of their span at once;
 * - records first: their calls wait, like tool-span-only calls and persisted with the batch, until
 *   the span arrives (merge.ts counts them then, with its model) or `dedupe.execution_grace` passes.
 *
 * A call is keyed by trace and call id whichever way it came, so one that a span carries as a span
 * event and a log record repeats is counted once.
 *
 * Every model span without calls passes through here, so the memory is a few fixed columns, not an
 * object and a key string per span (they were promoted and marked by every major GC): a span is its
 * 64-bit hash of trace + span id (dedupe-hash.ts) in an open-addressing index, in recency order
 * through two link columns; its model and offered tools are references to values shared by every
 * span that sent the same (interned below), so 20,000 spans of one agent hold one model string and
 * one definitions array. A false join (another span's model and tools) needs two remembered spans'
 * hashes to be equal: ≈ 20,000 / 2^64 per record.
 */
import type { SpanFacts, ToolDef } from '../model.js';
import { h64, hashKey, MODEL_SPAN } from './dedupe-hash.js';
import { insertSlot, removeSlot } from './slot-index.js';

/** Model spans remembered for records that arrive after them. */
export const MAX_REMEMBERED_SPANS = 20_000;
/** Distinct models and definition lists shared at once; past it the interning starts over (values stay valid). */
const MAX_INTERNED = 1_024;
/** Lists starting with one definition object compared at most (combinations of shared definitions). */
const LISTS_PER_FIRST = 8;
const NONE = -1;

export class LogJoin {
  private readonly hi: Int32Array;
  private readonly lo: Int32Array;
  private readonly older: Int32Array;
  private readonly newer: Int32Array;
  /** slot + 1; 0 = empty. Linear probing, backward-shift deletion. */
  private readonly index: Int32Array;
  private readonly models: (string | undefined)[];
  private readonly offered: (readonly ToolDef[] | undefined)[];
  private used = 0;
  private oldest = NONE;
  private newest = NONE;
  private count = 0;
  private readonly modelOf = new Map<string, string>();
  /** Definition lists by their first definition (the readers share definition objects by their text: tooldefs.ts). */
  private readonly listsOf = new Map<ToolDef | undefined, (readonly ToolDef[])[]>();

  constructor(private readonly max = MAX_REMEMBERED_SPANS) {
    this.hi = new Int32Array(max);
    this.lo = new Int32Array(max);
    this.older = new Int32Array(max);
    this.newer = new Int32Array(max);
    let n = 16;
    while (n < max + (max >> 2)) n *= 2;
    this.index = new Int32Array(n);
    this.models = new Array<string | undefined>(max).fill(undefined);
    this.offered = new Array<readonly ToolDef[] | undefined>(max).fill(undefined);
  }

  /** Called for every batch of span facts: remembers its model spans that carry no calls themselves. */
  remember(facts: readonly SpanFacts[]): void {
    for (const f of facts) {
      if (f.role !== 'model' || f.claimId !== undefined || f.proposals.length > 0 || f.model === undefined) continue;
      hashKey(MODEL_SPAN, f.traceId, f.spanId);
      let s = this.find();
      if (s !== NONE) this.unlink(s);
      else {
        if (this.used < this.max) s = this.used++;
        else {
          // The least recently remembered span makes room.
          s = this.oldest;
          this.unlink(s);
          removeSlot(this.index, this.lo, s);
          this.count--;
        }
        this.hi[s] = h64[0]!;
        this.lo[s] = h64[1]!;
        insertSlot(this.index, this.lo, s);
        this.count++;
      }
      this.link(s);
      this.models[s] = this.sharedModel(f.model);
      this.offered[s] = f.offered === undefined ? undefined : this.sharedList(f.offered);
    }
  }

  /** Facts read from log records: their claim id, and their span's model, or a wait for it. */
  join(f: SpanFacts, claimId: string): void {
    f.claimId = claimId;
    hashKey(MODEL_SPAN, f.traceId, f.spanId);
    const s = this.find();
    if (s !== NONE) {
      f.model ??= this.models[s];
      const offered = this.offered[s];
      if (offered !== undefined) f.offered ??= offered;
    } else if (f.model === undefined && f.proposals.length > 0) {
      f.awaitsSpan = true;
    }
  }

  get size(): number {
    return this.count;
  }

  /** Bytes of the columns (the shared values are counted where they came from). */
  get bytes(): number {
    return this.hi.byteLength * 4 + this.index.byteLength + this.max * 2 * 8;
  }

  /** The slot holding h64, or NONE. */
  private find(): number {
    const ix = this.index;
    const m = ix.length - 1;
    const hi = h64[0]!;
    const lo = h64[1]!;
    for (let i = lo & m; ix[i] !== 0; i = (i + 1) & m) {
      const s = ix[i]! - 1;
      if (this.lo[s] === lo && this.hi[s] === hi) return s;
    }
    return NONE;
  }

  private link(s: number): void {
    this.older[s] = this.newest;
    this.newer[s] = NONE;
    if (this.newest !== NONE) this.newer[this.newest] = s;
    else this.oldest = s;
    this.newest = s;
  }

  private unlink(s: number): void {
    const o = this.older[s]!;
    const n = this.newer[s]!;
    if (o !== NONE) this.newer[o] = n;
    else this.oldest = n;
    if (n !== NONE) this.older[n] = o;
    else this.newest = o;
  }

  private sharedModel(model: string): string {
    const hit = this.modelOf.get(model);
    if (hit !== undefined) return hit;
    if (this.modelOf.size >= MAX_INTERNED) this.modelOf.clear();
    this.modelOf.set(model, model);
    return model;
  }

  /**
   * One array for every span whose offered tools are the same definition objects in the same order
   * (a definitions string is read once, into one shared list: tooldefs.ts). Lists read from objects
   * are each their own and are kept as they came.
   */
  private sharedList(list: readonly ToolDef[]): readonly ToolDef[] {
    const bucket = this.listsOf.get(list[0]);
    if (bucket !== undefined) {
      for (const l of bucket) if (l === list || sameItems(l, list)) return l;
      if (bucket.length >= LISTS_PER_FIRST) return list;
      bucket.push(list);
    } else {
      if (this.listsOf.size >= MAX_INTERNED) this.listsOf.clear();
      this.listsOf.set(list[0], [list]);
    }
    return list;
  }
}

function sameItems(a: readonly ToolDef[], b: readonly ToolDef[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
