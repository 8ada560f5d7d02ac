/**
 * The holds of the unsettled batches (ledger.ts: Ledger.holds): a 30-bit key (holdKey) to the batch
 * holding it, in an open-addressing table (linear probing, backward-shift deletion) that grows and
 * never shrinks. Every batch fills it with its spans and calls and empties it again when it settles:
 * a Map resized its hash table up and down with that, most of what a hold cost (issue 22).
 */
export class HoldTable<T> {
  /** key + 1; 0 = empty. */
  private keys = new Int32Array(64);
  private owners: (T | undefined)[] = new Array<T | undefined>(64).fill(undefined);
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(k: number): T | undefined {
    const keys = this.keys;
    const m = keys.length - 1;
    const want = k + 1;
    for (let i = k & m; ; i = (i + 1) & m) {
      const v = keys[i]!;
      if (v === 0) return undefined;
      if (v === want) return this.owners[i];
    }
  }

  /** `owner` holds k now (in place of any other). */
  set(k: number, owner: T): void {
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const keys = this.keys;
    const m = keys.length - 1;
    const want = k + 1;
    let i = k & m;
    for (; keys[i] !== 0; i = (i + 1) & m) {
      if (keys[i] === want) {
        this.owners[i] = owner;
        return;
      }
    }
    keys[i] = want;
    this.owners[i] = owner;
    this.count++;
  }

  /** Lets go of k if `owner` holds it. */
  release(k: number, owner: T): void {
    const keys = this.keys;
    const m = keys.length - 1;
    const want = k + 1;
    let i = k & m;
    for (; keys[i] !== want; i = (i + 1) & m) if (keys[i] === 0) return;
    if (this.owners[i] !== owner) return;
    keys[i] = 0;
    this.owners[i] = undefined;
    this.count--;
    // Backward shift: move up each later entry of the run whose home is not in (i, j].
    for (let j = (i + 1) & m; keys[j] !== 0; j = (j + 1) & m) {
      const h = (keys[j]! - 1) & m;
      const inRange = i <= j ? h > i && h <= j : h > i || h <= j;
      if (inRange) continue;
      keys[i] = keys[j]!;
      this.owners[i] = this.owners[j];
      keys[j] = 0;
      this.owners[j] = undefined;
      i = j;
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldOwners = this.owners;
    const n = oldKeys.length * 2;
    this.keys = new Int32Array(n);
    this.owners = new Array<T | undefined>(n).fill(undefined);
    this.count = 0;
    for (let i = 0; i < oldKeys.length; i++) if (oldKeys[i] !== 0) this.set(oldKeys[i]! - 1, oldOwners[i]!);
  }
}
