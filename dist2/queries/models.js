/**
 * Models side by side (GET /api/stats?by=model and the page's models section): per service and model
 * over a window, the structural error rate, the unvalidated share, the executions and how many failed
 * downstream, calls per trajectory (and the other efficiency measures), and — when the judge runs — the
 * weighted reached_goal rate of its verdicts given in the window. A model that is new to its service
 * (its first minute, once the service already had calls of another model: src/queries/trends.ts
 * modelChanges) is marked with that minute, so "we switched the model on Saturday" is one look.
 */
import { verdictRates } from '../judge/calibration.js';
import { OUTCOMES } from '../model.js';
import { efficiency } from './efficiency.js';
import { callSeries, seriesRange } from './series.js';
import { executionSummary } from './stats.js';
import { modelChanges } from './trends.js';
import { storeFilter } from '../util/service-view.js';
const iso = (ms) => new Date(ms).toISOString();
export async function modelComparison(r, q) {
    const range = seriesRange(q.nowMs, q.windowMs);
    const length = range.untilMs - range.sinceMs;
    const view = storeFilter(r.view);
    const svc = { ...(q.service ? { service: q.service } : {}), ...view };
    const judgeOn = r.judge?.config.enabled ? r.judge : undefined;
    const [now, before, execs, eff, verdicts] = await Promise.all([
        callSeries(r.store, { ...range, stepMs: length, by: ['service', 'model'], ...svc }),
        callSeries(r.store, {
            sinceMs: range.sinceMs - length,
            untilMs: range.sinceMs,
            stepMs: length,
            by: ['service', 'model'],
            ...svc,
        }),
        r.store.executionCounts({ ...range, ...svc }),
        efficiency(r, { windowMs: q.windowMs, nowMs: q.nowMs, ...(q.service ? { service: q.service } : {}) }),
        judgeOn ? judgeOn.store.verdicts.verdictPoints({ sinceMs: range.sinceMs, ...svc }) : Promise.resolve(undefined),
    ]);
    const changes = modelChanges(now.series, before.series);
    const key = (service, model) => `${service}\u0000${model}`;
    const execBy = new Map();
    for (const e of execs)
        execBy.set(key(e.service, e.model), [...(execBy.get(key(e.service, e.model)) ?? []), e]);
    const effBy = new Map(eff.models.map((g) => [key(g.service, g.model), g.stats]));
    const verdictsBy = new Map();
    for (const v of verdicts ?? [])
        verdictsBy.set(key(v.service, v.model ?? ''), [...(verdictsBy.get(key(v.service, v.model ?? '')) ?? []), v]);
    const changeBy = new Map(changes.map((c) => [key(c.service, c.model), c]));
    const models = now.series.map((s) => {
        const service = s.key.service ?? '';
        const model = s.key.model ?? '';
        const k = key(service, model);
        const p = s.sum;
        const points = verdictsBy.get(k) ?? [];
        const change = changeBy.get(k);
        return {
            service,
            model,
            counts: Object.fromEntries(OUTCOMES.map((o) => [o, p.counts[o]])),
            total: p.total,
            checked: p.checked,
            failed: p.failed,
            errorRate: p.errorRate,
            unvalidatedShare: p.total > 0 ? p.counts.unvalidated / p.total : null,
            executions: executionSummary(execBy.get(k) ?? []),
            trajectories: effBy.get(k) ?? null,
            reachedGoal: verdicts ? { ...verdictRates(points).reachedGoal, verdicts: points.length } : null,
            firstSeen: iso(s.firstMinute),
            changed: change ? { at: iso(change.minute), before: change.before } : null,
        };
    });
    models.sort((a, b) => a.service.localeCompare(b.service) || b.total - a.total || a.model.localeCompare(b.model));
    return { window: range, models, modelChanges: changes };
}
//# sourceMappingURL=models.js.map