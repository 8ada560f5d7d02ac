/**
 * The most frequent attribute keys of a stream, in bounded memory: the Space-Saving algorithm
 * (Metwally et al.) keeps `capacity` counters; a new key takes over the smallest one and inherits
 * its count (so counts are upper bounds, and every key seen more than n/capacity times is kept).
 * Keys only — values are never seen here.
 */
export class TopKeys {
  /** One mutable counter per key: a repeat sighting, the common case, is one lookup and an increment. */
  private readonly counts = new Map<string, { n: number }>();

  constructor(private readonly capacity: number) {}

  add(key: string): void {
    const c = this.counts.get(key);
    if (c !== undefined) {
      c.n++;
      return;
    }
    if (this.counts.size < this.capacity) {
      this.counts.set(key, { n: 1 });
      return;
    }
    let minKey = '';
    let min = Infinity;
    for (const [k, { n }] of this.counts) {
      if (n < min) {
        min = n;
        minKey = k;
      }
    }
    this.counts.delete(minKey);
    this.counts.set(key, { n: min + 1 });
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
