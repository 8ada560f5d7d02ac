/**
 * error_rate_drift: the error rate of the current window against the trailing baseline's, with a
 * one-sided two-proportion z-test. A rise from 0.2 % to 0.9 % is far below any sane fixed
 * threshold yet a clear change on enough traffic; this catches it. A separate kind (not an option
 * of `drift`) because it groups like error_rate (`by`) and compares rates, not distributions.
 */
import { bySchema, groupRows, pct, } from '../rules.js';
import { durationSchema } from '../../util/duration.js';
import { twoProportionZTest } from '../stats.js';
import { tally, topFailingTools } from './counts.js';
export const errorRateDrift = {
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
            window: { ...durationSchema, default: '1h' },
            baseline: { ...durationSchema, default: '24h' },
            p_value: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.001 },
            min_ratio: { type: 'number', minimum: 1, default: 2 },
            min_calls: { type: 'integer', minimum: 1, default: 100 },
            min_baseline_calls: { type: 'integer', minimum: 1, default: 1000 },
            by: bySchema,
            service: { type: 'string', minLength: 1 },
        },
    },
    evaluate(p, data) {
        const out = [];
        const before = groupRows(data.baseline, p.by);
        for (const [key, g] of groupRows(data.current, p.by)) {
            const cur = tally(g.rows);
            const base = tally(before.get(key)?.rows ?? []);
            const rate = cur.checked ? cur.failed / cur.checked : 0;
            const baseRate = base.checked ? base.failed / base.checked : 0;
            const test = twoProportionZTest(cur.failed, cur.checked, base.failed, base.checked);
            const enough = cur.checked >= p.min_calls && base.checked >= p.min_baseline_calls;
            const rose = rate > baseRate && rate >= baseRate * p.min_ratio;
            out.push({
                labels: g.labels,
                active: enough && rose && test.pGreater < p.p_value,
                value: rate,
                threshold: baseRate,
                summary: enough
                    ? `error rate ${pct(rate)} vs ${pct(baseRate)} in the baseline (z=${test.z.toFixed(2)}, p=${test.pGreater.toExponential(2)})`
                    : `not enough calls to compare (${cur.checked} now, ${base.checked} in the baseline)`,
                details: {
                    window: p.window,
                    baselineWindow: p.baseline,
                    checked: cur.checked,
                    failed: cur.failed,
                    baseline: baseRate,
                    baselineChecked: base.checked,
                    z: test.z,
                    pValue: test.pGreater,
                    topTools: topFailingTools(g.rows),
                },
            });
        }
        return out;
    },
};
//# sourceMappingURL=error-rate-drift.js.map