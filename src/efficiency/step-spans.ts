/**
 * The tracker's memory of each trace's model spans, per slot, as columns: which span ids it has seen
 * (a resent span is not a new step), which are nested in one another (one step, its tokens counted
 * once), and each step's start and counted tokens (for the repair turns). The first IDS_PER_SLOT
 * spans of a trace sit in a fixed area of its slot; a longer trajectory's go to an overflow array.
 * Apart from tracker.ts, which counts what this decides.
 */
import { grown } from '../util/typed-arrays.js';
import type { StepCost } from './repairs.js';

/** Model spans of a trace whose ids fit the fixed area of its slot; more go to an overflow array. */
const IDS_PER_SLOT = 4;
/** An overflow step: span id hash, parent hash, tokens counted, start ms, input and output tokens. */
const OVERFLOW_STRIDE = 6;

/** Hex digit values ('0'–'9', 'a'–'f', 'A'–'F'); -1 for every other character code below 128. */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = HEX[65 + i] = 10 + i;

/**
 * 28 bits of a hex span id (its last 7 digits): a small integer, so the ids of a trace cost no object
 * each. Read from the characters when they are 7 hex digits (a span id always), else as parseInt reads
 * them (-2 when it reads nothing).
 */
export function idHash(spanId: string): number {
  const n = spanId.length;
  if (n >= 7) {
    let h = 0;
    for (let i = n - 7; i < n; i++) {
      const c = spanId.charCodeAt(i);
      const d = c < 128 ? HEX[c]! : -1;
      if (d < 0) return slowIdHash(spanId);
      h = h * 16 + d;
    }
    return h;
  }
  return slowIdHash(spanId);
}

function slowIdHash(spanId: string): number {
  const h = Number.parseInt(spanId.slice(-7), 16);
  return Number.isFinite(h) ? h : -2;
}

/** What `look` found: the span was seen before (a resent batch). */
export const SEEN = -1;
/** Flags: it is nested in (or holds) a step already seen; one of those had its tokens counted. */
export const NESTED = 1;
export const TOKENS_NEARBY = 2;

export class StepSpans {
  /** IDS_PER_SLOT × [span id hash, parent id hash (-1 for none), 1 if its tokens were counted] per slot. */
  private ids = new Int32Array(0);
  /** IDS_PER_SLOT × [start ms, input tokens, output tokens] per slot: the steps' cost, for the repair turns. */
  private cost = new Float64Array(0);
  private count = new Int32Array(0);
  private readonly overflow: (number[] | undefined)[] = [];

  /** Columns for `capacity` slots (what was held kept). */
  grow(capacity: number): void {
    this.ids = grown(this.ids, capacity * IDS_PER_SLOT * 3);
    this.cost = grown(this.cost, capacity * IDS_PER_SLOT * 3);
    this.count = grown(this.count, capacity);
  }

  /** A slot taken for a new trace. */
  reset(slot: number): void {
    this.count[slot] = 0;
  }

  /** A slot freed. */
  clear(slot: number): void {
    this.overflow[slot] = undefined;
  }

  /** SEEN, or the NESTED and TOKENS_NEARBY flags of a span (its id and parent id hashes; -1: no parent). */
  look(slot: number, id: number, parent: number): number {
    let flags = 0;
    const n = this.count[slot]!;
    const base = slot * IDS_PER_SLOT * 3;
    const ids = this.ids;
    for (let i = 0, fixed = Math.min(n, IDS_PER_SLOT); i < fixed; i++) {
      const at = base + i * 3;
      if (ids[at] === id) return SEEN;
      if (ids[at] === parent || ids[at + 1] === id) {
        flags |= NESTED;
        if (ids[at + 2] === 1) flags |= TOKENS_NEARBY;
      }
    }
    const more = this.overflow[slot];
    if (more) {
      for (let i = 0; i < more.length; i += OVERFLOW_STRIDE) {
        if (more[i] === id) return SEEN;
        if (more[i] === parent || more[i + 1] === id) {
          flags |= NESTED;
          if (more[i + 2] === 1) flags |= TOKENS_NEARBY;
        }
      }
    }
    return flags;
  }

  /** Remembers a span not seen before, with its start and the tokens counted for it (0 when none). */
  add(
    slot: number,
    id: number,
    parent: number,
    counted: boolean,
    startMs: number,
    input: number,
    output: number,
  ): void {
    const n = this.count[slot]!;
    if (n < IDS_PER_SLOT) {
      const at = (slot * IDS_PER_SLOT + n) * 3;
      const ids = this.ids;
      ids[at] = id;
      ids[at + 1] = parent;
      ids[at + 2] = counted ? 1 : 0;
      const cost = this.cost;
      cost[at] = startMs;
      cost[at + 1] = input;
      cost[at + 2] = output;
    } else (this.overflow[slot] ??= []).push(id, parent, counted ? 1 : 0, startMs, input, output);
    this.count[slot] = n + 1;
  }

  /** The steps of a slot with their start and counted tokens (for its repair turns). */
  costs(slot: number): StepCost[] {
    const out: StepCost[] = [];
    const n = Math.min(this.count[slot]!, IDS_PER_SLOT);
    const c = this.cost;
    for (let i = 0; i < n; i++) {
      const at = (slot * IDS_PER_SLOT + i) * 3;
      out.push({ startMs: c[at]!, inputTokens: c[at + 1]!, outputTokens: c[at + 2]! });
    }
    const more = this.overflow[slot];
    if (more)
      for (let i = 0; i < more.length; i += OVERFLOW_STRIDE)
        out.push({ startMs: more[i + 3]!, inputTokens: more[i + 4]!, outputTokens: more[i + 5]! });
    return out;
  }
}
