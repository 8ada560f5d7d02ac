/**
 * What a process knows is stored already, so the batch's problem write can leave out what would not
 * change a row — re-sightings were most of the problem statements per batch.
 *
 * - Example slots: a problem's `first` example and each model's first are written once (`DO NOTHING`
 *   on conflict). Once a write that carried one has committed, later batches neither build (redact)
 *   nor send it again. Only `latest` changes with every sighting.
 * - Problem rows: once a signature's own row is seen stored, its failures cannot go to the service's
 *   `_other` row any more, so the overflow statement and the "which row" lookups are left out.
 *   Seen by one read after the commit that carried a signature not known yet (off the batch's path:
 *   in a steady state no read at all).
 *
 * Learned only from committed writes and from reads (a refused write's rows go out again with its
 * retry, in full); per process (another replica's rows are unknown here and written again,
 * harmlessly); bounded (when full it starts over, and rows are written in full again). Problem rows
 * are never deleted, and a signature's rows go to the same row (its own or `_other`) on every write, so
 * what was once stored stays stored.
 */
import type { BatchExtension } from '../store/sql.js';

/** Slots written once and never replaced; `latest` is not one. */
export const isOnceSlot = (slot: string): boolean => slot !== 'latest';

export const rowKey = (service: string, id: string): string => `${service}\u0000${id}`;
export const slotKey = (service: string, id: string, slot: string): string => `${service}\u0000${id}\u0000${slot}`;

/** What a write carries that becomes known when it commits. */
export interface Carried {
  /** Once-slots (slotKey). */
  slots: string[];
  /** Signatures whose own row is not known yet: looked up after the commit. */
  rows: { service: string; id: string }[];
}

export class KnownRows {
  private readonly slots = new Set<string>();
  private readonly rows = new Set<string>();
  private readonly carried = new WeakMap<BatchExtension, Carried>();

  constructor(private readonly max = 100_000) {}

  hasSlot(key: string): boolean {
    return this.slots.has(key);
  }

  hasRow(service: string, id: string): boolean {
    return this.rows.has(rowKey(service, id));
  }

  carry(write: BatchExtension, what: Carried): void {
    if (what.slots.length > 0 || what.rows.length > 0) this.carried.set(write, what);
  }

  /** The write committed: its once-slots are stored; returns the signatures to look up. */
  committed(write: BatchExtension): { service: string; id: string }[] {
    const what = this.carried.get(write);
    if (!what) return [];
    this.carried.delete(write);
    add(this.slots, what.slots, this.max);
    return what.rows.filter((r) => !this.rows.has(rowKey(r.service, r.id)));
  }

  /** Signatures whose own rows a read found stored. */
  seen(rows: readonly { service: string; id: string }[]): void {
    add(
      this.rows,
      rows.map((r) => rowKey(r.service, r.id)),
      this.max,
    );
  }
}

function add(set: Set<string>, keys: readonly string[], max: number): void {
  if (set.size + keys.length > max) set.clear();
  for (const k of keys) set.add(k);
}
