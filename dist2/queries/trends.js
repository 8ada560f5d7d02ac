import { perTool } from '../alerts/kinds/counts.js';
import { groupKey, groupRows, loadCallWindows } from '../alerts/rules.js';
import { storeFilter } from '../util/service-view.js';
import { callSeries, rollup, seriesRange, stepFor } from './series.js';
/** The page's trends as `read` may see them: its view filters every series and drift rule's counts. */
export async function pageTrends(read, q) {
    const store = read.store;
    const rules = read.alerting?.rules ?? [];
    const range = seriesRange(q.nowMs, q.windowMs);
    const view = storeFilter(read.view);
    const svc = { ...(q.service !== undefined ? { service: q.service } : {}), ...view };
    const stepMs = stepFor(range.untilMs - range.sinceMs);
    const length = range.untilMs - range.sinceMs;
    const [all, previous] = await Promise.all([
        callSeries(store, { ...range, stepMs, by: ['service', 'model', 'tool'], ...svc }),
        // One bucket: which models each service used in the window before this one.
        callSeries(store, {
            sinceMs: range.sinceMs - length,
            untilMs: range.sinceMs,
            stepMs: length,
            by: ['service', 'model'],
            ...svc,
        }),
    ]);
    const models = rollup(all, ['service', 'model']).series;
    return {
        ...range,
        stepMs,
        buckets: all.buckets,
        services: rollup(all, ['service']).series,
        tools: rollup(all, ['service', 'tool']).series,
        models,
        outcomes: rollup(all, []).series[0],
        modelChanges: modelChanges(models, previous.series),
        drift: await driftViews(store, rules, q.nowMs, q.service, view.services),
    };
}
/**
 * A model a service had not used in the window before, first seen after the service already had
 * calls (from another model, or before the window): the moment its model changed. A brand-new
 * service's first model is not a change.
 */
export function modelChanges(models, previous) {
    const before = new Map();
    for (const s of previous) {
        const set = before.get(s.key.service) ?? new Set();
        before.set(s.key.service, set.add(s.key.model));
    }
    const out = [];
    for (const s of models) {
        const service = s.key.service;
        const model = s.key.model;
        const prior = before.get(service);
        if (prior?.has(model))
            continue;
        const earlier = models
            .filter((o) => o.key.service === service && o.key.model !== model && o.firstMinute < s.firstMinute)
            .map((o) => o.key.model);
        const all = [...new Set([...(prior ?? []), ...earlier])].sort();
        if (all.length)
            out.push({ service, model, minute: s.firstMinute, before: all });
    }
    return out.sort((a, b) => a.minute - b.minute || a.service.localeCompare(b.service));
}
/** Each drift rule's windows, read and judged as the rule does, with the share of every tool. */
async function driftViews(store, rules, nowMs, service, services) {
    const out = [];
    for (const rule of rules) {
        if (rule.config.kind !== 'drift')
            continue;
        const p = rule.params;
        const by = p.by ?? ['service'];
        if (service && p.service && p.service !== service)
            continue;
        const data = (await loadCallWindows({ ...p, ...(service ? { service } : {}) }, { callCounts: (c) => store.callCounts(services ? { ...c, services } : c) }, nowMs));
        const observations = rule.kind.evaluate(rule.params, data, nowMs);
        const current = groupRows(data.current, by);
        const base = groupRows(data.baseline, by);
        out.push({
            rule: rule.config.name,
            window: p.window,
            baseline: p.baseline,
            minDistance: p.min_distance,
            pValue: p.p_value,
            by: [...by],
            services: observations.map((o) => {
                const svc = o.labels.service ?? '';
                const now = perTool(current.get(groupKey(o.labels))?.rows ?? []);
                const then = perTool(base.get(groupKey(o.labels))?.rows ?? []);
                const total = [...now.values()].reduce((a, b) => a + b, 0);
                const baselineTotal = [...then.values()].reduce((a, b) => a + b, 0);
                const tools = [...new Set([...now.keys(), ...then.keys()])]
                    .map((tool) => ({
                    tool,
                    before: baselineTotal ? (then.get(tool) ?? 0) / baselineTotal : 0,
                    after: total ? (now.get(tool) ?? 0) / total : 0,
                }))
                    .sort((a, b) => b.after - a.after || b.before - a.before || a.tool.localeCompare(b.tool));
                const d = o.details;
                const model = o.labels.model !== undefined ? { model: o.labels.model } : {};
                const enough = total >= Number(rule.params.min_calls) && baselineTotal >= Number(rule.params.min_baseline_calls);
                const distance = d.distance ?? o.value;
                return {
                    service: svc,
                    ...model,
                    active: o.active,
                    enough,
                    distance,
                    pValue: d.pValue ?? 1,
                    total,
                    baselineTotal,
                    tools,
                };
            }),
        });
    }
    return out;
}
//# sourceMappingURL=trends.js.map