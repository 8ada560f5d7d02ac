/**
 * Calls over time from the minute aggregates: one series per group (service, model, tool — any
 * combination), one point per bucket (zero-filled), each point with its counts by outcome, checked,
 * failed and the error rate, and the first minute each group was seen. The built-in page draws its
 * trends from it; a per-model comparison is callSeries(by: ['service', 'model']).
 */
import { currentWindow } from '../alerts/rules.js';
import { isFailure, OUTCOMES, type OutcomeName } from '../model.js';
import type { CallSeriesRow, SeriesDimension, Store } from '../store/store.js';

export type { SeriesDimension };

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

export interface SeriesPoint {
  /** Bucket start, ms since the epoch. */
  t: number;
  counts: Record<OutcomeName, number>;
  total: number;
  /** All but unvalidated: the error rate's denominator. */
  checked: number;
  /** InvalidJson + UnknownName + SchemaMismatch. */
  failed: number;
  errorRate: number | null;
}

export interface Series {
  /** The group: the dimensions asked for and their values. */
  key: Partial<Record<SeriesDimension, string>>;
  points: SeriesPoint[];
  /** The whole range in one point (t = the range start). */
  sum: SeriesPoint;
  /** The first minute with calls of this group in the range. */
  firstMinute: number;
}

export interface CallSeries {
  sinceMs: number;
  untilMs: number;
  stepMs: number;
  /** Every bucket start, oldest first (the first may start before sinceMs: it counts only minutes from sinceMs). */
  buckets: number[];
  by: SeriesDimension[];
  /** Most calls first. */
  series: Series[];
}

export interface SeriesQuery {
  sinceMs: number;
  untilMs: number;
  stepMs: number;
  service?: string;
  /** Only services matching one of these globs (a reader's view). */
  services?: readonly string[];
  by: readonly SeriesDimension[];
}

/** The range of a window as /api/stats counts it: whole minutes, the current one included. */
export function seriesRange(nowMs: number, windowMs: number): { sinceMs: number; untilMs: number } {
  return currentWindow(nowMs, windowMs);
}

/** Minute buckets up to 3 h, hour buckets up to 7 d, day buckets beyond (at most a few hundred points). */
export function stepFor(windowMs: number): number {
  return windowMs <= 3 * HOUR ? MINUTE : windowMs <= 7 * DAY ? HOUR : DAY;
}

const zeroCounts = (): Record<OutcomeName, number> =>
  Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<OutcomeName, number>;

export function point(t: number, counts: Record<OutcomeName, number>): SeriesPoint {
  let total = 0;
  let failed = 0;
  for (const o of OUTCOMES) {
    total += counts[o];
    if (isFailure(o)) failed += counts[o];
  }
  const checked = total - counts.unvalidated;
  return { t, counts, total, checked, failed, errorRate: checked > 0 ? failed / checked : null };
}

const keyOf = (key: Partial<Record<SeriesDimension, string>>, by: readonly SeriesDimension[]) =>
  JSON.stringify(by.map((d) => key[d] ?? ''));

function build(rows: readonly CallSeriesRow[], q: SeriesQuery, origin: number): CallSeries {
  const buckets: number[] = [];
  for (let t = origin; t < q.untilMs; t += q.stepMs) buckets.push(t);
  const by = [...q.by];
  const groups = new Map<
    string,
    { key: Partial<Record<SeriesDimension, string>>; counts: Record<OutcomeName, number>[]; firstMinute: number }
  >();
  for (const r of rows) {
    const key = Object.fromEntries(by.map((d) => [d, r[d] ?? ''])) as Partial<Record<SeriesDimension, string>>;
    const k = keyOf(key, by);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { key, counts: buckets.map(zeroCounts), firstMinute: r.firstMinute }));
    const i = Math.round((r.bucket - origin) / q.stepMs);
    const c = g.counts[i];
    if (c) c[r.outcome] += r.count;
    g.firstMinute = Math.min(g.firstMinute, r.firstMinute);
  }
  const series = [...groups.values()].map((g): Series => {
    const sum = zeroCounts();
    for (const c of g.counts) for (const o of OUTCOMES) sum[o] += c[o];
    return {
      key: g.key,
      points: g.counts.map((c, i) => point(buckets[i]!, c)),
      sum: point(q.sinceMs, sum),
      firstMinute: g.firstMinute,
    };
  });
  series.sort((a, b) => b.sum.total - a.sum.total || keyOf(a.key, by).localeCompare(keyOf(b.key, by)));
  return { sinceMs: q.sinceMs, untilMs: q.untilMs, stepMs: q.stepMs, buckets, by, series };
}

/** Buckets aligned to the step in UTC (minutes, hours, days), so the same instant always lands in the same bucket. */
export async function callSeries(store: Pick<Store, 'callSeries'>, q: SeriesQuery): Promise<CallSeries> {
  const origin = Math.floor(q.sinceMs / q.stepMs) * q.stepMs;
  const rows = await store.callSeries({
    sinceMs: q.sinceMs,
    untilMs: q.untilMs,
    stepMs: q.stepMs,
    originMs: origin,
    by: q.by,
    ...(q.service !== undefined ? { service: q.service } : {}),
    ...(q.services ? { services: q.services } : {}),
  });
  return build(rows, q, origin);
}

/** The same series summed over fewer dimensions (e.g. per service from per service and tool). */
export function rollup(cs: CallSeries, by: readonly SeriesDimension[]): CallSeries {
  const groups = new Map<string, Series>();
  for (const s of cs.series) {
    const key = Object.fromEntries(by.map((d) => [d, s.key[d] ?? ''])) as Partial<Record<SeriesDimension, string>>;
    const k = keyOf(key, by);
    const g = groups.get(k);
    if (!g) {
      groups.set(k, { ...s, key });
      continue;
    }
    const add = (a: SeriesPoint, b: SeriesPoint) =>
      point(
        a.t,
        Object.fromEntries(OUTCOMES.map((o) => [o, a.counts[o] + b.counts[o]])) as Record<OutcomeName, number>,
      );
    groups.set(k, {
      key,
      points: g.points.map((p, i) => add(p, s.points[i]!)),
      sum: add(g.sum, s.sum),
      firstMinute: Math.min(g.firstMinute, s.firstMinute),
    });
  }
  const series = [...groups.values()].sort(
    (a, b) => b.sum.total - a.sum.total || keyOf(a.key, by).localeCompare(keyOf(b.key, by)),
  );
  return { ...cs, by: [...by], series };
}
