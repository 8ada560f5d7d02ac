import { changesList } from '../queries/changes.js';
import { problemsOverview } from '../queries/problems.js';
import { alertsSnapshot } from '../queries/alerts.js';
import { failuresPage } from '../queries/failures.js';
import { judgeSummary } from '../queries/judge.js';
import { instrumentationReport } from '../queries/instrumentation.js';
import { finish, toolStats } from '../queries/stats.js';
import { pageTrends } from '../queries/trends.js';
import { modelComparison } from '../queries/models.js';
import { OUTCOMES } from '../model.js';
/** Failures listed on the page; the rest are one click away in /api/failures. */
export const PAGE_FAILURES = 50;
/** The judge runs hourly: its summary covers the same default window as GET /api/judge. */
export const JUDGE_WINDOW = '7d';
/** Problems listed on the page (new and regressed first); the rest are in /api/problems. */
export const PAGE_PROBLEMS = 20;
/** Change events marked on the trend charts. */
export const PAGE_CHANGES = 200;
const byConcern = (a, b) => (b.errorRate ?? -1) - (a.errorRate ?? -1) ||
    b.total - a.total ||
    a.service.localeCompare(b.service) ||
    a.tool.localeCompare(b.tool);
export async function loadPageData(src, q) {
    const nowMs = src.now();
    const service = q.service || undefined;
    const judgeOn = src.judge?.config.enabled ? src.judge : undefined;
    // Not filtered by `service`, so the service list stays complete; the filter applies below (a handful of rows).
    const [stats, trends, alerts, judge, models, problems, changes] = await Promise.all([
        toolStats(src, { windowMs: q.windowMs, nowMs }),
        pageTrends(src, { nowMs, windowMs: q.windowMs, ...(service ? { service } : {}) }),
        src.alerting ? alertsSnapshot(src) : Promise.resolve(undefined),
        judgeOn
            ? judgeSummary({ ...src, judge: judgeOn }, { window: JUDGE_WINDOW, nowMs, runs: 1, ...(service ? { service } : {}) })
            : Promise.resolve(undefined),
        modelComparison(src, { windowMs: q.windowMs, nowMs, ...(service ? { service } : {}) }),
        problemsOverview(src, { sinceMs: nowMs - q.windowMs, limit: PAGE_PROBLEMS, ...(service ? { service } : {}) }),
        changesList(src, { sinceMs: nowMs - q.windowMs, limit: PAGE_CHANGES, ...(service ? { service } : {}) }, { ...q.attribution, nowMs }),
    ]);
    const failures = (await failuresPage(src, { sinceMs: stats.sinceMs, limit: PAGE_FAILURES, ...(service ? { service } : {}) })).items;
    // Failures are already of the reader's services; their trajectories are too.
    const trajectories = src.judge
        ? await src.judge.store.trajectories.storedTraceIds(failures.map((f) => f.traceId))
        : new Set();
    const tools = stats.tools.filter((t) => !service || t.service === service).sort(byConcern);
    const counts = Object.fromEntries(OUTCOMES.map((o) => [o, tools.reduce((n, t) => n + t.counts[o], 0)]));
    return {
        nowMs,
        window: q.window,
        sinceMs: stats.sinceMs,
        ...(service ? { service } : {}),
        services: [...new Set(stats.tools.map((t) => t.service))].sort(),
        tools,
        totals: finish({ service: service ?? '', tool: '', counts, total: 0, checked: 0, errorRate: null }),
        failures,
        trajectories,
        alerts,
        judge,
        instrumentation: instrumentationReport(src, service ? { service } : {}),
        trends,
        models,
        problems,
        changes: changes.changes,
    };
}
//# sourceMappingURL=data.js.map