import { describe, expect, it } from 'vitest';
import { HoldTable } from '../../src/pipeline/hold-table.js';
import { seeded } from '../../src/util/seeded.js';

/** A deterministic stream of small numbers (mulberry32). */
const rand = seeded;

describe('HoldTable', () => {
  it('answers as a map with "release only by its owner" would, through growth and backward-shift deletes', () => {
    const r = rand(22);
    const table = new HoldTable<string>();
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
      } else if (op < 0.85) {
        table.release(k, owner);
        if (model.get(k) === owner) model.delete(k);
      }
      expect(table.get(k)).toBe(model.get(k));
      expect(table.size).toBe(model.size);
    }
    for (let k = 0; k < 300; k++) expect(table.get(k)).toBe(model.get(k));
    for (const [k, v] of model) expect(table.get(k)).toBe(v);
  });

  it('keeps a key held by another owner when one that does not hold it lets go', () => {
    const table = new HoldTable<string>();
    table.set(7, 'a');
    table.set(7, 'b');
    table.release(7, 'a');
    expect(table.get(7)).toBe('b');
    table.release(7, 'b');
    expect(table.get(7)).toBeUndefined();
    expect(table.size).toBe(0);
  });
});
