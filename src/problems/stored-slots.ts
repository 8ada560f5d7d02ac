/**
 * The example slots a process knows are stored. A problem's `first` example and each model's first
 * are written once (`DO NOTHING` on conflict), so once a write that carried one has committed, later
 * batches need neither build (redact) nor send it again — such re-sightings were most of the example
 * writes per batch. Only `latest` changes with every sighting.
 *
 * Learned only from committed writes (a refused write's slots go out again with its retry); per
 * process (another replica's rows are unknown here and written again, harmlessly: `DO NOTHING`);
 * bounded (when full it starts over, and slots are written again as before). Problem rows are never
 * deleted, and a signature's rows go to the same row (its own or the service's `_other`) on every
 * write, so a slot once stored stays stored.
 */
import type { BatchExtension } from '../store/sql.js';

/** Slots written once and never replaced; `latest` is not one. */
export const isOnceSlot = (slot: string): boolean => slot !== 'latest';

export class StoredSlots {
  private readonly known = new Set<string>();
  private readonly carried = new WeakMap<BatchExtension, string[]>();

  constructor(private readonly max = 100_000) {}

  static key(service: string, id: string, slot: string): string {
    return `${service}\u0000${id}\u0000${slot}`;
  }

  has(key: string): boolean {
    return this.known.has(key);
  }

  /** The once-slots `write` carries, known once it committed. */
  carry(write: BatchExtension, keys: string[]): void {
    if (keys.length > 0) this.carried.set(write, keys);
  }

  committed(write: BatchExtension): void {
    const keys = this.carried.get(write);
    if (!keys) return;
    this.carried.delete(write);
    if (this.known.size + keys.length > this.max) this.known.clear();
    for (const k of keys) this.known.add(k);
  }

  get size(): number {
    return this.known.size;
  }
}
