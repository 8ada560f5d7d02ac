/**
 * The most frequent attribute keys of a stream, in bounded memory: the Space-Saving algorithm
 * (Metwally et al.) keeps `capacity` counters; a new key takes over the smallest one and inherits
 * its count (so counts are upper bounds, and every key seen more than n/capacity times is kept).
 * Keys only — values are never seen here.
 */
export class TopKeys {
  /** One mutable counter per key: a repeat sighting, the common case, is one lookup and an increment. */
  private readonly counts = new Map<string, { n: number }>();
  private evicted = 0;

  constructor(private readonly capacity: number) {}

  /**
   * How many keys were pushed out so far: while it stays the same, every counter `add` returned is
   * still its key's, and bumping it (n++) is what `add` of its key does.
   */
  get evictions(): number {
    return this.evicted;
  }

  /** Counts a sighting of the key; its counter. */
  add(key: string): { n: number } {
    const c = this.counts.get(key);
    if (c !== undefined) {
      c.n++;
      return c;
    }
    if (this.counts.size < this.capacity) {
      const fresh = { n: 1 };
      this.counts.set(key, fresh);
      return fresh;
    }
    this.evicted++;
    let minKey = '';
    let min = Infinity;
    for (const [k, { n }] of this.counts) {
      if (n < min) {
        min = n;
        minKey = k;
      }
    }
    this.counts.delete(minKey);
    const taken = { n: min + 1 };
    this.counts.set(key, taken);
    return taken;
  }

  /** The n most frequent keys, most frequent first (ties by key). */
  top(n: number): { key: string; spans: number }[] {
    return [...this.counts]
      .map(([key, c]): [string, number] => [key, c.n])
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, n)
      .map(([key, spans]) => ({ key, spans }));
  }

  get size(): number {
    return this.counts.size;
  }
}
