/**
 * The tracker's trace index (src/efficiency/trace-table.ts) against a Map doing the same: the same
 * slot for every id, the same ids in the same (insertion) order, ids spelled back as they came —
 * through growth, removals in any order (the backward shift of its open addressing) and ids that are
 * not 32 lower-case hex digits.
 */
import { describe, expect, it } from 'vitest';
import { TraceTable } from '../../src/efficiency/trace-table.js';

/** A small deterministic generator (the test's own, so a failure repeats). */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const hex = (r: () => number, digits = 32) =>
  Array.from({ length: digits }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');

function order(t: TraceTable): number[] {
  const out: number[] = [];
  for (let s = t.first(); s >= 0; s = t.after(s)) out.push(s);
  return out;
}

describe('TraceTable', () => {
  it('finds, adds and removes as a Map does, in its insertion order', () => {
    const r = rng(7);
    const t = new TraceTable();
    const ref = new Map<string, number>();
    const free: number[] = [];
    let used = 0;
    let capacity = 0;
    // Ids that share a prefix or a suffix, some odd (upper case, short, empty), and repeats.
    const pool = Array.from({ length: 3_000 }, (_, i) =>
      i % 10 === 0
        ? hex(r).toUpperCase()
        : i % 10 === 1
          ? `odd-${i}`
          : i % 10 === 2
            ? `${'0'.repeat(24)}${hex(r, 8)}`
            : i % 10 === 3
              ? `${hex(r, 8)}${'f'.repeat(24)}`
              : hex(r),
    );
    pool.push('', 'a', '0'.repeat(32), 'f'.repeat(32));
    for (let step = 0; step < 40_000; step++) {
      const id = pool[Math.floor(r() * pool.length)]!;
      const known = ref.get(id);
      // Checked without expect in the loop (40,000 expects take seconds); any difference fails below.
      if (t.find(id) !== (known ?? -1)) expect([step, id, t.find(id)]).toEqual([step, id, known ?? -1]);
      if (known === undefined) {
        const slot = free.pop() ?? used++;
        if (slot >= capacity) t.reserve((capacity = Math.max(16, capacity * 2)));
        t.add(id, slot);
        ref.set(id, slot);
      } else if (r() < 0.6) {
        t.remove(known);
        if (t.idOf(known) !== id) expect(t.idOf(known)).toBe(id);
        t.forget(known);
        ref.delete(id);
        free.push(known);
      }
      if (t.size !== ref.size) expect(t.size).toBe(ref.size);
      if (step % 4_000 === 0) {
        expect(order(t)).toEqual([...ref.values()]);
        for (const [k, s] of ref) expect([t.find(k), t.idOf(s)]).toEqual([s, k]);
      }
    }
    expect(order(t)).toEqual([...ref.values()]);
    // Walking while removing (as takeIdle does) visits every slot once.
    const seen: number[] = [];
    for (let s = t.first(); s >= 0; ) {
      const next = t.after(s);
      seen.push(s);
      t.remove(s);
      s = next;
    }
    expect(seen).toEqual([...ref.values()]);
    expect(t.size).toBe(0);
    for (const k of ref.keys()) expect(t.find(k)).toBe(-1);
  });

  it('finds nothing before anything was added', () => {
    expect(new TraceTable().find('0af7651916cd43dd8448eb211c80319c')).toBe(-1);
  });
});
