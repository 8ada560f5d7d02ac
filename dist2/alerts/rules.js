import { MINUTE_MS, minuteOf } from '../store/store.js';
import { parseDuration } from '../util/duration.js';
/** Windows over the minute aggregates: whole minutes, the current (partial) one included, as /api/stats counts. */
export function currentWindow(now, windowMs) {
    const untilMs = minuteOf(now) + MINUTE_MS;
    return { sinceMs: untilMs - Math.max(MINUTE_MS, windowMs), untilMs };
}
/** The trailing baseline just before the current window (never overlapping it). */
export function baselineWindow(now, windowMs, baselineMs) {
    const cur = currentWindow(now, windowMs);
    return { sinceMs: cur.sinceMs - baselineMs, untilMs: cur.sinceMs };
}
/** The default loader: `window` (+ `baseline`) of call counts, optionally for one `service`. */
export async function loadCallWindows(params, io, now) {
    const windowMs = parseDuration(params.window ?? '5m') ?? 5 * MINUTE_MS;
    const svc = params.service ? { service: params.service } : {};
    const current = await io.callCounts({ ...currentWindow(now, windowMs), ...svc });
    const baselineMs = params.baseline ? parseDuration(params.baseline) : undefined;
    const baseline = baselineMs ? await io.callCounts({ ...baselineWindow(now, windowMs, baselineMs), ...svc }) : [];
    return { current, baseline };
}
/** The execution counts of `window`, optionally for one `service`; none when the store keeps no executions. */
export async function loadExecutionWindow(params, io, now) {
    if (!io.executionCounts)
        return [];
    const windowMs = parseDuration(params.window) ?? 5 * MINUTE_MS;
    return io.executionCounts({
        ...currentWindow(now, windowMs),
        ...(params.service ? { service: params.service } : {}),
    });
}
export const GROUP_LABELS = ['service', 'tool', 'model'];
/** Sums rows per group of the `by` labels (call counts or execution counts alike). */
export function groupRows(rows, by) {
    const out = new Map();
    for (const r of rows) {
        const labels = Object.fromEntries(by.map((l) => [l, r[l]]));
        const key = groupKey(labels);
        let g = out.get(key);
        if (!g)
            out.set(key, (g = { labels, rows: [] }));
        g.rows.push(r);
    }
    return out;
}
/** A stable key for a label set (sorted, JSON), used for alert identity. */
export function groupKey(labels) {
    return JSON.stringify(Object.keys(labels)
        .sort()
        .map((k) => [k, labels[k]]));
}
export function pct(x) {
    if (!Number.isFinite(x))
        return String(x);
    const v = x * 100;
    return `${v >= 10 || v === 0 ? v.toFixed(1).replace(/\.0$/, '') : v.toPrecision(2)}%`;
}
/** The `by` key most kinds share, as a schema fragment. */
export const bySchema = {
    type: 'array',
    items: { enum: [...GROUP_LABELS] },
    uniqueItems: true,
    default: ['service'],
};
//# sourceMappingURL=rules.js.map