/**
 * A non-negative 31-bit integer key to an object, in an open-addressing table (linear probing,
 * backward-shift deletion) that grows and never shrinks. The ledger keeps two (ledger.ts): the holds
 * of the unsettled batches (a 30-bit holdKey to the batch holding it) and the live call entries (a
 * call slot to its object). Every batch fills both and empties them again when it settles: a Map
 * resized its hash table up and down with that — most of what a hold cost, and for the live entries
 * new backing stores that the old Map kept past young-generation collections: about two thirds of
 * what was promoted at max (issue 22, docs/performance-history.md). Keys are their own hash: hold keys are
 * hashes already, and call slots are distinct small numbers. Never shrinking, a table stays as large
 * as the most keys it held at once (a spike's batches in flight): 12 bytes a slot.
 */
export class IntTable<T> {
  /** key + 1; 0 = empty. */
  private keys = new Int32Array(64);
  private values: (T | undefined)[] = new Array<T | undefined>(64).fill(undefined);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Slots allocated: doubles when half full, never shrinks. */
  get capacity(): number {
    return this.keys.length;
  }

  // Its own loop, not indexOf: the hottest of the table's reads (every call entry a batch reaches).
  get(k: number): T | undefined {
    const keys = this.keys;
    const m = keys.length - 1;
    const want = k + 1;
    for (let i = k & m; ; i = (i + 1) & m) {
      const v = keys[i]!;
      if (v === 0) return undefined;
      if (v === want) return this.values[i];
    }
  }

  /** k holds `value` now (in place of any other). */
  set(k: number, value: T): void {
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const keys = this.keys;
    const m = keys.length - 1;
    const want = k + 1;
    let i = k & m;
    for (; keys[i] !== 0; i = (i + 1) & m) {
      if (keys[i] === want) {
        this.values[i] = value;
        return;
      }
    }
    keys[i] = want;
    this.values[i] = value;
    this.count++;
  }

  /** Lets go of k if `value` is what it holds. */
  release(k: number, value: T): void {
    const i = this.indexOf(k);
    if (i >= 0 && this.values[i] === value) this.removeAt(i);
  }

  /** Lets go of k and returns what it held (undefined: nothing): get and release in one probe. */
  take(k: number): T | undefined {
    const i = this.indexOf(k);
    if (i < 0) return undefined;
    const value = this.values[i];
    this.removeAt(i);
    return value;
  }

  /** The slot holding k, or -1. */
  private indexOf(k: number): number {
    const keys = this.keys;
    const m = keys.length - 1;
    const want = k + 1;
    for (let i = k & m; ; i = (i + 1) & m) {
      const v = keys[i]!;
      if (v === want) return i;
      if (v === 0) return -1;
    }
  }

  private removeAt(at: number): void {
    const keys = this.keys;
    const m = keys.length - 1;
    let i = at;
    keys[i] = 0;
    this.values[i] = undefined;
    this.count--;
    // Backward shift: move up each later entry of the run whose home is not in (i, j].
    for (let j = (i + 1) & m; keys[j] !== 0; j = (j + 1) & m) {
      const h = (keys[j]! - 1) & m;
      const inRange = i <= j ? h > i && h <= j : h > i || h <= j;
      if (inRange) continue;
      keys[i] = keys[j]!;
      this.values[i] = this.values[j];
      keys[j] = 0;
      this.values[j] = undefined;
      i = j;
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const n = oldKeys.length * 2;
    this.keys = new Int32Array(n);
    this.values = new Array<T | undefined>(n).fill(undefined);
    this.count = 0;
    for (let i = 0; i < oldKeys.length; i++) if (oldKeys[i] !== 0) this.set(oldKeys[i]! - 1, oldValues[i]!);
  }
}
