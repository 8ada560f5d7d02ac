/**
 * Alert rule kind `definition_drift` — drift by definition (`by: [definition]`): per service, tool
 * and definition version offered in `window`, that version's structural error rate against the
 * same tool's rate on its other versions in the trailing `baseline` (one-sided two-proportion
 * z-test, as error_rate_drift). "refund_order's new definition fails more than the old one did":
 * it fires when the rate rose by `min_ratio` with p < `p_value`, once both sides have enough calls.
 * A version that was the only one all through the baseline has nothing to be compared with and
 * never fires here (error_rate_drift watches that). evaluate() is pure; load() reads the calls per
 * definition version (version_minutes) through RuleIO (`io.definitions`, added below).
 */
import { baselineWindow, currentWindow, pct } from '../alerts/rules.js';
import { twoProportionZTest } from '../alerts/stats.js';
import { isFailure } from '../model.js';
import { durationMs, durationSchema } from '../util/duration.js';
const tally = (rows) => {
    let checked = 0;
    let failed = 0;
    for (const r of rows) {
        if (r.outcome === 'unvalidated')
            continue;
        checked += r.count;
        if (isFailure(r.outcome))
            failed += r.count;
    }
    return { checked, failed };
};
export function evaluateDefinitionDrift(p, data) {
    const key = (r) => `${r.service}\u0000${r.tool}`;
    const groups = new Map();
    for (const r of data.current) {
        if (p.service && r.service !== p.service)
            continue;
        const k = `${key(r)}\u0000${r.value}`;
        groups.set(k, [...(groups.get(k) ?? []), r]);
    }
    const out = [];
    for (const rows of groups.values()) {
        const { service, tool, value } = rows[0];
        const cur = tally(rows);
        const others = tally(data.baseline.filter((b) => key(b) === key(rows[0]) && b.value !== value));
        const rate = cur.checked ? cur.failed / cur.checked : 0;
        const baseRate = others.checked ? others.failed / others.checked : 0;
        const test = twoProportionZTest(cur.failed, cur.checked, others.failed, others.checked);
        const enough = cur.checked >= p.min_calls && others.checked >= p.min_baseline_calls;
        const rose = rate > baseRate && rate >= baseRate * p.min_ratio;
        out.push({
            labels: { service, tool, definition: value },
            active: enough && rose && test.pGreater < p.p_value,
            value: rate,
            threshold: baseRate,
            summary: enough
                ? `${tool} on definition ${value}: error rate ${pct(rate)} vs ${pct(baseRate)} on its other versions ` +
                    `in the baseline (${cur.failed} of ${cur.checked} vs ${others.failed} of ${others.checked}, ` +
                    `p=${test.pGreater.toExponential(2)})`
                : `not enough calls to compare ${tool}'s definition ${value} (${cur.checked} now, ` +
                    `${others.checked} on its other versions in the baseline)`,
            details: {
                window: p.window,
                baselineWindow: p.baseline,
                checked: cur.checked,
                failed: cur.failed,
                baseline: baseRate,
                baselineChecked: others.checked,
                z: test.z,
                pValue: test.pGreater,
            },
        });
    }
    return out;
}
export const definitionDrift = {
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
            window: { ...durationSchema, default: '1h' },
            baseline: { ...durationSchema, default: '24h' },
            p_value: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.001 },
            min_ratio: { type: 'number', minimum: 1, default: 2 },
            min_calls: { type: 'integer', minimum: 1, default: 50 },
            min_baseline_calls: { type: 'integer', minimum: 1, default: 200 },
            by: { type: 'array', items: { enum: ['definition'] }, minItems: 1, uniqueItems: true, default: ['definition'] },
            service: { type: 'string', minLength: 1 },
        },
    },
    async load(p, io, now) {
        if (!io.definitions)
            return { current: [], baseline: [] };
        const svc = p.service ? { service: p.service } : {};
        const windowMs = durationMs(p.window);
        const [current, baseline] = await Promise.all([
            io.definitions.counts({ ...currentWindow(now, windowMs), ...svc }),
            io.definitions.counts({ ...baselineWindow(now, windowMs, durationMs(p.baseline)), ...svc }),
        ]);
        return { current, baseline };
    },
    evaluate: (p, data) => evaluateDefinitionDrift(p, data),
};
//# sourceMappingURL=alert-kind.js.map