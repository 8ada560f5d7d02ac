/**
 * Per service and tool over a window: counts by outcome and the structural error rate, and the tool's
 * executions by status (GET /api/stats and the built-in page). Aggregates are per minute: the window
 * covers whole minutes, the current one included.
 */
import { EXECUTION_STATUSES, isFailure, OUTCOMES } from '../model.js';
import { MINUTE_MS, minuteOf } from '../store/store.js';
import { formatDuration } from '../util/duration.js';
import { storeFilter } from '../util/service-view.js';
export function executionSummary(rows) {
    const byStatus = Object.fromEntries(EXECUTION_STATUSES.map((s) => [s, 0]));
    let total = 0;
    for (const r of rows) {
        byStatus[r.status] = (byStatus[r.status] ?? 0) + r.count;
        total += r.count;
    }
    return { total, byStatus, clientErrorRate: total > 0 ? byStatus.client_error / total : null };
}
const emptyCounts = () => Object.fromEntries(OUTCOMES.map((o) => [o, 0]));
export async function toolStats(r, q) {
    const windowMs = Math.max(MINUTE_MS, q.windowMs);
    const sinceMs = minuteOf(q.nowMs) - windowMs + MINUTE_MS;
    const filter = { sinceMs, ...(q.service ? { service: q.service } : {}), ...storeFilter(r.view) };
    const [rows, execs] = await Promise.all([r.store.callCounts(filter), r.store.executionCounts(filter)]);
    const byTool = new Map();
    const get = (service, tool) => {
        const key = `${service}\u0000${tool}`;
        let s = byTool.get(key);
        if (!s)
            byTool.set(key, (s = { service, tool, counts: emptyCounts(), total: 0, checked: 0, errorRate: null }));
        return s;
    };
    for (const row of rows)
        get(row.service, row.tool).counts[row.outcome] += Number(row.count);
    const execByTool = new Map();
    for (const e of execs) {
        const s = get(e.service, e.tool);
        execByTool.set(s, [...(execByTool.get(s) ?? []), e]);
    }
    const tools = [...byTool.values()].map((s) => {
        const ex = execByTool.get(s);
        return finish(ex ? { ...s, executions: executionSummary(ex) } : s);
    });
    return { window: formatDuration(windowMs), sinceMs, tools };
}
/** Totals, checked and the error rate from the counts by outcome. */
export function finish(s) {
    let total = 0;
    let failed = 0;
    for (const o of OUTCOMES) {
        total += s.counts[o];
        if (isFailure(o))
            failed += s.counts[o];
    }
    const checked = total - s.counts.unvalidated;
    return { ...s, total, checked, errorRate: checked > 0 ? failed / checked : null };
}
//# sourceMappingURL=stats.js.map