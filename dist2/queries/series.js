/**
 * Calls over time from the minute aggregates: one series per group (service, model, tool — any
 * combination), one point per bucket (zero-filled), each point with its counts by outcome, checked,
 * failed and the error rate, and the first minute each group was seen. The built-in page draws its
 * trends from it; a per-model comparison is callSeries(by: ['service', 'model']).
 */
import { currentWindow } from '../alerts/rules.js';
import { isFailure, OUTCOMES } from '../model.js';
export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;
/** The range of a window as /api/stats counts it: whole minutes, the current one included. */
export function seriesRange(nowMs, windowMs) {
    return currentWindow(nowMs, windowMs);
}
/** Minute buckets up to 3 h, hour buckets up to 7 d, day buckets beyond (at most a few hundred points). */
export function stepFor(windowMs) {
    return windowMs <= 3 * HOUR ? MINUTE : windowMs <= 7 * DAY ? HOUR : DAY;
}
const zeroCounts = () => Object.fromEntries(OUTCOMES.map((o) => [o, 0]));
export function point(t, counts) {
    let total = 0;
    let failed = 0;
    for (const o of OUTCOMES) {
        total += counts[o];
        if (isFailure(o))
            failed += counts[o];
    }
    const checked = total - counts.unvalidated;
    return { t, counts, total, checked, failed, errorRate: checked > 0 ? failed / checked : null };
}
const keyOf = (key, by) => JSON.stringify(by.map((d) => key[d] ?? ''));
function build(rows, q, origin) {
    const buckets = [];
    for (let t = origin; t < q.untilMs; t += q.stepMs)
        buckets.push(t);
    const by = [...q.by];
    const groups = new Map();
    for (const r of rows) {
        const key = Object.fromEntries(by.map((d) => [d, r[d] ?? '']));
        const k = keyOf(key, by);
        let g = groups.get(k);
        if (!g)
            groups.set(k, (g = { key, counts: buckets.map(zeroCounts), firstMinute: r.firstMinute }));
        const i = Math.round((r.bucket - origin) / q.stepMs);
        const c = g.counts[i];
        if (c)
            c[r.outcome] += r.count;
        g.firstMinute = Math.min(g.firstMinute, r.firstMinute);
    }
    const series = [...groups.values()].map((g) => {
        const sum = zeroCounts();
        for (const c of g.counts)
            for (const o of OUTCOMES)
                sum[o] += c[o];
        return {
            key: g.key,
            points: g.counts.map((c, i) => point(buckets[i], c)),
            sum: point(q.sinceMs, sum),
            firstMinute: g.firstMinute,
        };
    });
    series.sort((a, b) => b.sum.total - a.sum.total || keyOf(a.key, by).localeCompare(keyOf(b.key, by)));
    return { sinceMs: q.sinceMs, untilMs: q.untilMs, stepMs: q.stepMs, buckets, by, series };
}
/** Buckets aligned to the step in UTC (minutes, hours, days), so the same instant always lands in the same bucket. */
export async function callSeries(store, q) {
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
export function rollup(cs, by) {
    const groups = new Map();
    for (const s of cs.series) {
        const key = Object.fromEntries(by.map((d) => [d, s.key[d] ?? '']));
        const k = keyOf(key, by);
        const g = groups.get(k);
        if (!g) {
            groups.set(k, { ...s, key });
            continue;
        }
        const add = (a, b) => point(a.t, Object.fromEntries(OUTCOMES.map((o) => [o, a.counts[o] + b.counts[o]])));
        groups.set(k, {
            key,
            points: g.points.map((p, i) => add(p, s.points[i])),
            sum: add(g.sum, s.sum),
            firstMinute: Math.min(g.firstMinute, s.firstMinute),
        });
    }
    const series = [...groups.values()].sort((a, b) => b.sum.total - a.sum.total || keyOf(a.key, by).localeCompare(keyOf(b.key, by)));
    return { ...cs, by: [...by], series };
}
//# sourceMappingURL=series.js.map