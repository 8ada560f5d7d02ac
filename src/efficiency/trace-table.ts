/**
 * The trajectory tracker's index from trace id to slot, without a Map and without keeping the id's
 * string: an OTLP trace id (32 lower-case hex digits, as the decoders write it) is kept as its 128
 * bits in a typed array, found through an open-addressing table of slot numbers (linear probing,
 * deletion by backward shift: no tombstones), and spelled out again only when its trajectory is
 * handed out. A Map held a string and an entry per trace for up to a minute — tens of thousands of
 * old-generation objects, rehashed as traces came and went —, and this holds none.
 *
 * An id of any other form (a test's `a`, a sender's upper-case hex) goes to a small Map of its own,
 * so every id is told apart exactly as a Map would. The slots in use are also linked in the order
 * they were added, so walking them visits the traces in a Map's insertion order.
 */
import { grown } from '../util/typed-arrays.js';
import { hexToWords, wordsToHex } from '../util/hex-id.js';
import { randomInt } from 'node:crypto';

function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class TraceTable {
  /** The id's bits per slot (four 32-bit words, most significant first). */
  private words = new Int32Array(0);
  /** The id's hash per slot (its home cell is found again without the id). */
  private hashes = new Int32Array(0);
  /** Slot + 1 per cell, 0 for an empty cell; at least twice as many cells as slots (never full). */
  private cells = new Int32Array(16);
  private mask = 15;
  /** Ids that are not 32 lower-case hex digits, and the same per slot (undefined for the others). */
  private readonly odd = new Map<string, number>();
  private oddIds: (string | undefined)[] = [];
  /** Slots in use, in the order they were added: prev/next slot + 1 (0: none). */
  private prev = new Int32Array(0);
  private next = new Int32Array(0);
  private head = -1;
  private tail = -1;
  private count = 0;
  /** Per process, so which ids share a cell cannot be chosen by a sender. */
  private readonly seed = randomInt(0x7fffffff);
  /** The last id found and its slot (-1: none), until the next add or remove: a trace's items come side by side. */
  private foundId: string | undefined;
  private foundSlot = -1;
  /** The last id parsed and its words (add follows a find of the same id). */
  private parsed: string | undefined;
  private parsedHex = false;
  private readonly w = new Int32Array(4);
  private readonly hexOut = Buffer.alloc(16);

  get size(): number {
    return this.count;
  }

  /** Makes room for slots 0 … n-1 (the tracker's capacity). */
  reserve(n: number): void {
    if (n <= this.hashes.length) return;
    this.words = grown(this.words, n * 4);
    this.hashes = grown(this.hashes, n);
    this.prev = grown(this.prev, n);
    this.next = grown(this.next, n);
    let cells = 16;
    while (cells < n * 2) cells *= 2;
    if (cells === this.cells.length) return;
    this.cells = new Int32Array(cells);
    this.mask = cells - 1;
    for (let s = this.head; s >= 0; s = this.next[s]! - 1) if (this.oddIds[s] === undefined) this.place(s);
  }

  /** The slot of the id, or -1. */
  find(id: string): number {
    if (id === this.foundId) return this.foundSlot;
    this.foundId = id;
    return (this.foundSlot = this.lookup(id));
  }

  private lookup(id: string): number {
    if (!this.parse(id)) return this.odd.get(id) ?? -1;
    const w = this.w;
    const h = this.hash();
    const words = this.words;
    for (let c = h & this.mask; ; c = (c + 1) & this.mask) {
      const v = this.cells[c]!;
      if (v === 0) return -1;
      const s = v - 1;
      const at = s * 4;
      if (
        this.hashes[s] === h &&
        words[at] === w[0] &&
        words[at + 1] === w[1] &&
        words[at + 2] === w[2] &&
        words[at + 3] === w[3]
      )
        return s;
    }
  }

  /** Adds an id that find did not find, under `slot` (a slot not in use), last in order. */
  add(id: string, slot: number): void {
    this.foundId = undefined;
    if (!this.parse(id)) {
      this.odd.set(id, slot);
      this.oddIds[slot] = id;
    } else {
      this.oddIds[slot] = undefined;
      this.words.set(this.w, slot * 4);
      this.hashes[slot] = this.hash();
      this.place(slot);
    }
    this.prev[slot] = this.tail + 1;
    this.next[slot] = 0;
    if (this.tail >= 0) this.next[this.tail] = slot + 1;
    else this.head = slot;
    this.tail = slot;
    this.count++;
  }

  /** Takes a slot's id out (its id stays readable with idOf until the slot is added again). */
  remove(slot: number): void {
    this.foundId = undefined;
    const odd = this.oddIds[slot];
    if (odd !== undefined) this.odd.delete(odd);
    else this.unplace(slot);
    const p = this.prev[slot]! - 1;
    const n = this.next[slot]! - 1;
    if (p >= 0) this.next[p] = n + 1;
    else this.head = n;
    if (n >= 0) this.prev[n] = p + 1;
    else this.tail = p;
    this.count--;
  }

  /** Forgets a removed slot's id for good (an odd id's string is let go). */
  forget(slot: number): void {
    this.oddIds[slot] = undefined;
  }

  /** The id of a slot in use or removed since (spelled as it came). */
  idOf(slot: number): string {
    const odd = this.oddIds[slot];
    if (odd !== undefined) return odd;
    return wordsToHex(this.words, slot * 4, 4, this.hexOut);
  }

  /** The first slot in order, -1 when none. */
  first(): number {
    return this.head;
  }

  /** The slot after `slot` in order (read it before removing `slot`), -1 at the end. */
  after(slot: number): number {
    return this.next[slot]! - 1;
  }

  /** Reads a 32-digit lower-case hex id into w; false for any other id. */
  private parse(id: string): boolean {
    if (id === this.parsed) return this.parsedHex;
    this.parsed = id;
    this.parsedHex = hexToWords(id, 32, this.w, 0);
    return this.parsedHex;
  }

  private hash(): number {
    const w = this.w;
    return fmix(fmix(fmix(fmix(w[0]! ^ this.seed) ^ w[1]!) ^ w[2]!) ^ w[3]!);
  }

  private place(slot: number): void {
    let c = this.hashes[slot]! & this.mask;
    while (this.cells[c] !== 0) c = (c + 1) & this.mask;
    this.cells[c] = slot + 1;
  }

  /** Empties the slot's cell and shifts back the cells after it that would no longer be found. */
  private unplace(slot: number): void {
    const cells = this.cells;
    const mask = this.mask;
    let hole = this.hashes[slot]! & mask;
    while (cells[hole] !== slot + 1) hole = (hole + 1) & mask;
    for (let c = (hole + 1) & mask; cells[c] !== 0; c = (c + 1) & mask) {
      const home = this.hashes[cells[c]! - 1]! & mask;
      // Movable when its home is not cyclically within (hole, c].
      if (((c - home) & mask) >= ((c - hole) & mask)) {
        cells[hole] = cells[c]!;
        hole = c;
      }
    }
    cells[hole] = 0;
  }
}
