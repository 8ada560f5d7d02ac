/**
 * The most frequent attribute keys of a stream, in bounded memory: the Space-Saving algorithm
 * (Metwally et al.) keeps `capacity` counters; a new key takes over the smallest one and inherits
 * its count (so counts are upper bounds, and every key seen more than n/capacity times is kept).
 * Keys only — values are never seen here.
 */
export class TopKeys {
    capacity;
    counts = new Map();
    constructor(capacity) {
        this.capacity = capacity;
    }
    add(key) {
        const c = this.counts.get(key);
        if (c !== undefined) {
            this.counts.set(key, c + 1);
            return;
        }
        if (this.counts.size < this.capacity) {
            this.counts.set(key, 1);
            return;
        }
        let minKey = '';
        let min = Infinity;
        for (const [k, n] of this.counts) {
            if (n < min) {
                min = n;
                minKey = k;
            }
        }
        this.counts.delete(minKey);
        this.counts.set(key, min + 1);
    }
    /** The n most frequent keys, most frequent first (ties by key). */
    top(n) {
        return [...this.counts]
            .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
            .slice(0, n)
            .map(([key, spans]) => ({ key, spans }));
    }
    get size() {
        return this.counts.size;
    }
}
//# sourceMappingURL=top-keys.js.map