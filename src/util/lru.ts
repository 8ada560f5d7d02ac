/**
 * A small bounded cache keyed by string, with second-chance (CLOCK) eviction: an approximate LRU
 * whose hit costs one Map lookup and a flag write, instead of a delete + re-insert on every hit.
 * Agents resend the same tool-definitions string on every request, so hits are the hot path.
 * Bounded by entry count AND total key length, so many distinct megabyte-sized strings cannot pin memory.
 */
interface Entry<V> {
  value: V;
  /** Set on a hit; an entry with it set survives one eviction pass. */
  used: boolean;
}

export class Lru<V> {
  private readonly map = new Map<string, Entry<V>>();
  private chars = 0;

  private readonly maxEntries: number;

  constructor(
    maxEntries: number,
    private readonly maxChars: number,
  ) {
    // The entry being added always stays, so eviction ends only if at least one entry is allowed.
    this.maxEntries = Math.max(1, maxEntries);
  }

  get(key: string): V | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    e.used = true;
    return e.value;
  }

  set(key: string, value: V): void {
    if (key.length > this.maxChars) return;
    const old = this.map.get(key);
    if (old !== undefined) {
      old.value = value;
      return;
    }
    this.map.set(key, { value, used: false });
    this.chars += key.length;
    this.evict(key);
  }

  private evict(keep: string): void {
    while (this.map.size > this.maxEntries || this.chars > this.maxChars) {
      const oldest = this.map.entries().next();
      if (oldest.done) return;
      const [k, e] = oldest.value;
      this.map.delete(k);
      if (k === keep || e.used) {
        // Second chance: recently hit entries (and the one being added) go to the back instead of out.
        e.used = false;
        this.map.set(k, e);
      } else {
        this.chars -= k.length;
      }
    }
  }

  get size(): number {
    return this.map.size;
  }

  clear(): void {
    this.map.clear();
    this.chars = 0;
  }
}
