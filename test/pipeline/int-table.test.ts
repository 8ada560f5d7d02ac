import { describe, expect, it } from 'vitest';
import { IntTable } from '../../src/pipeline/int-table.js';
import { seeded } from '../../src/util/seeded.js';

/** A deterministic stream of small numbers (mulberry32). */
const rand = seeded;

describe('IntTable', () => {
  it('answers as a map with "release only by its owner" and take would, through growth and backward-shift deletes', () => {
    const r = rand(22);
    const table = new IntTable<string>();
    const model = new Map<number, string>();
    const owners = ['a', 'b', 'c', 'd'];
    // Keys clustered in a small range (and a few far ones) so probe runs form, wrap and shift.
    const key = () => (r() < 0.9 ? Math.floor(r() * 300) : Math.floor(r() * 0x3fffffff));
    for (let step = 0; step < 20_000; step++) {
      const k = key();
      const owner = owners[Math.floor(r() * owners.length)]!;
      const op = r();
      if (op < 0.45) {
        table.set(k, owner);
        model.set(k, owner);
      } else if (op < 0.8) {
        table.release(k, owner);
        if (model.get(k) === owner) model.delete(k);
      } else if (op < 0.9) {
        // take: whatever k holds, handed back and let go of.
        expect(table.take(k)).toBe(model.get(k));
        model.delete(k);
      }
      expect(table.get(k)).toBe(model.get(k));
      expect(table.size).toBe(model.size);
    }
    for (let k = 0; k < 300; k++) expect(table.get(k)).toBe(model.get(k));
    for (const [k, v] of model) expect(table.get(k)).toBe(v);
  });

  it('keeps a key held by another owner when one that does not hold it lets go', () => {
    const table = new IntTable<string>();
    table.set(7, 'a');
    table.set(7, 'b');
    table.release(7, 'a');
    expect(table.get(7)).toBe('b');
    table.release(7, 'b');
    expect(table.get(7)).toBeUndefined();
    expect(table.size).toBe(0);
  });

  it('holds call slots of batch after batch without growing again once it is large enough', () => {
    // As the ledger's live entries: each batch makes ~28 consecutive call slots live, a few batches
    // are unsettled at a time, and each lets go of its slots when it settles. A Map re-allocated its
    // hash table with that traffic; this table must reach its size once and stay there.
    const table = new IntTable<{ slot: number }>();
    const inFlight: { slot: number }[][] = [];
    let next = 1_000_000;
    let capacityAfterWarmUp = 0;
    for (let batch = 0; batch < 5_000; batch++) {
      const entries = Array.from({ length: 28 }, () => ({ slot: next++ }));
      for (const e of entries) table.set(e.slot, e);
      inFlight.push(entries);
      if (inFlight.length > 8) for (const e of inFlight.shift()!) table.release(e.slot, e);
      if (batch === 100) capacityAfterWarmUp = table.capacity;
      for (const e of entries) expect(table.get(e.slot)).toBe(e);
    }
    expect(table.size).toBe(8 * 28);
    expect(table.capacity).toBe(capacityAfterWarmUp);
    expect(table.capacity).toBeLessThanOrEqual(1024);
    for (const entries of inFlight) for (const e of entries) table.release(e.slot, e);
    expect(table.size).toBe(0);
    expect(table.get(next - 1)).toBeUndefined();
  });
});
