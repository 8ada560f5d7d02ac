/**
 * What the judge has found: sampling, trajectories by status, weighted rates, calibration, runs; one
 * trajectory with its verdicts. A restricted reader gets the verdicts and trajectories of its services;
 * runs and calibration span every service and are withheld (an empty list, null).
 */
import { verdictRates } from '../judge/calibration.js';
import { CURRENT_PROMPT_VERSION } from '../judge/prompt-file.js';
import { durationMs } from '../util/duration.js';
import { isRestricted, storeFilter } from '../util/service-view.js';
/**
 * Per run (newest first, runs that judged something within the window): the weighted reached_goal
 * rate, unnecessary calls per trajectory and agent tokens per success — the judge's trends.
 */
export function judgeTrend(points, runs) {
    const byRun = new Map();
    for (const p of points)
        byRun.set(p.runId, [...(byRun.get(p.runId) ?? []), p]);
    return runs.flatMap((r) => {
        const pts = byRun.get(r.id);
        if (!pts)
            return [];
        const rates = verdictRates(pts);
        return [
            {
                runId: r.id,
                startedAt: new Date(r.startedMs).toISOString(),
                verdicts: pts.length,
                reachedGoal: rates.reachedGoal,
                unnecessaryCallsPerTrajectory: rates.unnecessaryCallsPerTrajectory,
                tokensPerSuccess: rates.tokensPerSuccess,
            },
        ];
    });
}
/** What GET /api/judge answers (the built-in page shows a part of it). `window` is a duration ('7d'). */
export async function judgeSummary(r, q) {
    const { judge, view } = r;
    const restricted = isRestricted(view);
    const windowMs = durationMs(q.window);
    const sinceMs = q.nowMs - windowMs;
    const points = await judge.store.verdicts.verdictPoints({
        sinceMs,
        ...(q.service ? { service: q.service } : {}),
        ...storeFilter(view),
    });
    const byService = new Map();
    for (const p of points)
        byService.set(p.service, [...(byService.get(p.service) ?? []), p]);
    const calibration = restricted ? null : await judge.calibration();
    // The trend is over this reader's verdicts; the run list itself (an aggregate over every team) is not shown to a restricted reader.
    const runs = await judge.store.verdicts.runs(q.runs);
    return {
        enabled: judge.config.enabled,
        model: judge.config.model,
        promptVersion: CURRENT_PROMPT_VERSION,
        sampling: {
            project: judge.config.project,
            sampleRate: judge.config.sampleRate,
            serviceRates: Object.fromEntries(Object.entries(judge.config.serviceRates).filter(([s]) => view.sees(s))),
            failedRate: judge.config.failedRate ?? null,
            feedbackRate: judge.config.feedbackRate,
        },
        trajectories: await judge.store.trajectories.countByStatus(view.globs),
        window: q.window,
        since: new Date(sinceMs).toISOString(),
        rates: verdictRates(points),
        services: [...byService].map(([service, ps]) => ({ service, ...verdictRates(ps) })),
        calibration,
        trend: judgeTrend(points, runs),
        runs: restricted ? [] : runs,
    };
}
/** A stored trajectory with its verdicts and human label; undefined when none is stored or the reader may not see its service. */
export async function trajectoryDetail(r, traceId) {
    const t = await r.judge.store.trajectories.trajectory(traceId);
    if (!t || !r.view.sees(t.service))
        return undefined;
    return { ...t, ...(await r.judge.store.verdicts.judgementsOf(traceId)) };
}
//# sourceMappingURL=judge.js.map