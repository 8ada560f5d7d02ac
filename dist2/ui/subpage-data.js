import { attribute, presentAttribution } from '../queries/attribution.js';
import { changesList, toolDetail } from '../queries/changes.js';
import { problemDetail, problemsOverview } from '../queries/problems.js';
import { toolStats } from '../queries/stats.js';
import { pageTrends } from '../queries/trends.js';
export async function loadProblemPage(r, q) {
    const found = await problemDetail(r, q.id, q.service);
    if (found.kind !== 'one')
        return found.kind;
    const p = found.detail.problem;
    const nowMs = r.now();
    // As GET /api/problems/:id names it (likely_change, attribution.text); `_other` groups many failures.
    const subject = { service: p.service, tool: p.tool, outcomes: [p.outcome], beganMs: p.firstSeenMs };
    const [tool, cause] = await Promise.all([
        toolDetail(r, p.service, p.tool),
        p.outcome === '_other' ? undefined : attribute(r.store.sql, subject, { ...q.attribution, nowMs }),
    ]);
    const detail = cause
        ? { ...found.detail, ...presentAttribution(subject, cause, q.attribution.windowMs) }
        : found.detail;
    return { nowMs, window: q.window, detail, versions: tool?.versions ?? [] };
}
/** undefined when the reader may not see the service, or the tool has no versions, calls or problems. */
export async function loadToolPage(r, q) {
    if (!r.view.sees(q.service))
        return undefined;
    const nowMs = r.now();
    const sinceMs = nowMs - q.windowMs;
    const [detail, problems, stats, trends, changes] = await Promise.all([
        toolDetail(r, q.service, q.tool),
        problemsOverview(r, { sinceMs, service: q.service, tool: q.tool, limit: 100 }),
        toolStats(r, { windowMs: q.windowMs, nowMs, service: q.service }),
        pageTrends(r, { nowMs, windowMs: q.windowMs, service: q.service }),
        changesList(r, { service: q.service, sinceMs, limit: 200 }, { ...q.attribution, nowMs }),
    ]);
    const mine = stats.tools.find((t) => t.tool === q.tool);
    const series = trends.tools.find((s) => s.key.tool === q.tool);
    if (!detail && !mine && problems.length === 0)
        return undefined;
    return {
        nowMs,
        window: q.window,
        windowMs: q.windowMs,
        service: q.service,
        tool: q.tool,
        versions: detail?.versions ?? [],
        problems,
        stats: mine,
        series,
        buckets: trends.buckets,
        stepMs: trends.stepMs,
        changes: changes.changes,
    };
}
//# sourceMappingURL=subpage-data.js.map