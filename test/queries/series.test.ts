/**
 * The series arithmetic the page (and a per-model comparison) builds on: bucket widths per window,
 * zero-filled buckets aligned in UTC, roll-ups, and when a model counts as a change.
 */
import { describe, expect, it } from 'vitest';
import { callSeries, DAY, HOUR, MINUTE, rollup, stepFor, type Series } from '../../src/queries/series.js';
import { modelChanges } from '../../src/queries/trends.js';
import type { CallSeriesQuery, CallSeriesRow } from '../../src/store/store.js';

const T = Date.UTC(2025, 4, 14, 9, 0);

describe('call series', () => {
  it.each([
    [15 * MINUTE, MINUTE],
    [3 * HOUR, MINUTE],
    [3 * HOUR + MINUTE, HOUR],
    [7 * DAY, HOUR],
    [30 * DAY, DAY],
  ])('a %i ms window is drawn in %i ms buckets', (w, step) => expect(stepFor(w)).toBe(step));

  it('zero-fills buckets from the UTC-aligned origin, sums per group, rolls up to fewer dimensions', async () => {
    let asked: CallSeriesQuery | undefined;
    const rows: CallSeriesRow[] = [
      { bucket: T, service: 'a', model: 'm1', outcome: 'valid', count: 3, firstMinute: T + 10 * MINUTE },
      { bucket: T, service: 'a', model: 'm1', outcome: 'InvalidJson', count: 1, firstMinute: T + 20 * MINUTE },
      {
        bucket: T + 2 * HOUR,
        service: 'a',
        model: 'm2',
        outcome: 'unvalidated',
        count: 5,
        firstMinute: T + 2 * HOUR + 5 * MINUTE,
      },
      { bucket: T + 2 * HOUR, service: 'b', model: 'm1', outcome: 'valid', count: 2, firstMinute: T + 2 * HOUR },
    ];
    const store = { callSeries: async (q: CallSeriesQuery) => ((asked = q), rows) };
    const cs = await callSeries(store, {
      sinceMs: T + 10 * MINUTE,
      untilMs: T + 3 * HOUR,
      stepMs: HOUR,
      by: ['service', 'model'],
    });
    expect(asked).toMatchObject({ originMs: T, sinceMs: T + 10 * MINUTE, stepMs: HOUR });
    expect(cs.buckets).toEqual([T, T + HOUR, T + 2 * HOUR]);
    expect(cs.series.map((s) => [s.key, s.points.map((p) => p.total), s.sum.total, s.firstMinute])).toEqual([
      [{ service: 'a', model: 'm2' }, [0, 0, 5], 5, T + 2 * HOUR + 5 * MINUTE],
      [{ service: 'a', model: 'm1' }, [4, 0, 0], 4, T + 10 * MINUTE],
      [{ service: 'b', model: 'm1' }, [0, 0, 2], 2, T + 2 * HOUR],
    ]);
    const m1 = cs.series[1]!.points[0]!;
    expect([m1.checked, m1.failed, m1.errorRate]).toEqual([4, 1, 0.25]);
    expect(cs.series[0]!.sum.errorRate).toBeNull(); // nothing checked
    const perService = rollup(cs, ['service']);
    expect(perService.series.map((s) => [s.key, s.points.map((p) => p.total), s.sum.failed, s.firstMinute])).toEqual([
      [{ service: 'a' }, [4, 0, 5], 1, T + 10 * MINUTE],
      [{ service: 'b' }, [0, 0, 2], 0, T + 2 * HOUR],
    ]);
    expect(rollup(cs, []).series.map((s) => s.sum.counts)).toEqual([
      { valid: 5, InvalidJson: 1, UnknownName: 0, SchemaMismatch: 0, unvalidated: 5 },
    ]);
  });
});

describe('model changes', () => {
  const s = (service: string, model: string, firstMinute: number) =>
    ({ key: { service, model }, firstMinute }) as Series;

  it('marks a model new to a service that already had calls; a new service, or a model seen before, is no change', () => {
    const before = [s('a', 'gpt-4o', 0), s('c', 'm', 0)];
    const now = [
      s('a', 'gpt-4o', T),
      s('a', 'gpt-4.1', T + 5 * MINUTE),
      s('b', 'x', T + MINUTE),
      s('b', 'y', T + 9 * MINUTE),
      s('c', 'm', T),
    ];
    expect(modelChanges(now, before)).toEqual([
      { service: 'a', model: 'gpt-4.1', minute: T + 5 * MINUTE, before: ['gpt-4o'] },
      { service: 'b', model: 'y', minute: T + 9 * MINUTE, before: ['x'] },
    ]);
  });
});
