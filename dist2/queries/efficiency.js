/**
 * Trajectory efficiency over a window (GET /api/stats `trajectories`, the page's models section): per
 * service, and per service and model, the median, 90th percentile and mean of model steps, tool calls,
 * failed calls, tokens and wall time of the trajectories that completed in the window's minutes — read
 * from the per-minute buckets every replica adds to (src/efficiency/store.ts), through the reader's view.
 */
import { trajectoryStats } from '../efficiency/store.js';
import { MINUTE_MS, minuteOf } from '../store/store.js';
import { storeFilter } from '../util/service-view.js';
export async function efficiency(r, q) {
    const windowMs = Math.max(MINUTE_MS, q.windowMs);
    const untilMs = minuteOf(q.nowMs) + MINUTE_MS;
    return trajectoryStats(r.store.sql, {
        sinceMs: untilMs - windowMs,
        untilMs,
        ...(q.service ? { service: q.service } : {}),
        ...storeFilter(r.view),
    });
}
//# sourceMappingURL=efficiency.js.map