import { describe, expect, it } from 'vitest';
import { groupCounts } from '../../src/store/group-counts.js';
import type { CallAggregate, ExecutionAggregate, FailureDrop, WriteBatch } from '../../src/store/store.js';
import { emptyBatch } from '../../src/store/store.js';
import { seeded } from '../../src/util/seeded.js';

/** A deterministic stream (mulberry32). */
const rand = seeded;

/** What summing by a key of every field but the count gives: the rows in the order first seen. */
function byKey<T extends object>(rows: readonly T[], count: keyof T): T[] {
  const out = new Map<string, T>();
  for (const r of rows) {
    const { [count]: n, ...rest } = r;
    const k = JSON.stringify(Object.entries(rest));
    const had = out.get(k);
    if (had) (had[count] as number) += n as number;
    else out.set(k, { ...r });
  }
  return [...out.values()];
}

describe('groupCounts', () => {
  for (const distinct of [3, 200]) {
    it(`sums a group's count rows per key in first-seen order (${distinct} values per field), leaving the batches' rows as they were`, () => {
      const r = rand(distinct);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
      const values = Array.from({ length: distinct }, (_, i) => `v${i}`);
      const batches: WriteBatch[] = [];
      for (let b = 0; b < 6; b++) {
        const batch = emptyBatch();
        for (let i = 0; i < 60; i++) {
          const minute = 60_000 * Math.floor(r() * 3);
          batch.callAggregates.push({
            minute,
            source: pick(['otlp', 'langfuse'] as const),
            service: pick(values),
            model: pick(values),
            tool: pick(values),
            outcome: pick(['valid', 'InvalidJson', 'unvalidated'] as const),
            reason: pick(['', 'no_schema']),
            count: 1 + Math.floor(r() * 5),
          });
          batch.executionAggregates.push({
            minute,
            source: 'otlp',
            service: pick(values),
            model: pick(values),
            tool: pick(values),
            status: pick(['ok', 'server_error'] as const),
            callOutcome: pick(['valid', 'unknown']),
            count: 1 + Math.floor(r() * 5),
          } as ExecutionAggregate);
          batch.failureDrops.push({
            minute,
            service: pick(values),
            tool: pick(values),
            dropped: 1 + Math.floor(r() * 3),
          });
        }
        batches.push(batch);
      }
      const before = JSON.stringify(batches);
      const got = groupCounts(batches);
      expect(got.callAggregates).toEqual(
        byKey<CallAggregate>(
          batches.flatMap((b) => b.callAggregates),
          'count',
        ),
      );
      expect(got.executionAggregates).toEqual(
        byKey<ExecutionAggregate>(
          batches.flatMap((b) => b.executionAggregates),
          'count',
        ),
      );
      expect(got.failureDrops).toEqual(
        byKey<FailureDrop>(
          batches.flatMap((b) => b.failureDrops),
          'dropped',
        ),
      );
      expect(JSON.stringify(batches)).toBe(before);
      if (distinct === 3) expect(got.failureDrops.length).toBeLessThan(32);
      else expect(got.callAggregates.length).toBeGreaterThan(32);
    });
  }
});
