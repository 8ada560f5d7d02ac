/**
 * drift: has the agent's choice of tools shifted? Per service, the share of each tool in the
 * current window against a trailing baseline (default the previous 24 h, excluding the current
 * window). Fires only when both hold:
 * - the chi-square test of homogeneity says the two distributions differ (p < p_value), and
 * - the shift is material: Jensen–Shannon distance ≥ min_distance.
 * With heavy traffic the test alone flags trivial shifts; with light traffic the distance alone
 * flags noise. Together they say "real and large enough to look at".
 *
 * `by: [service, model]` compares the tool shares of each model of a service on its own (a model
 * switch changes the mix of its calls; per model, drift is what is left once the mix is set apart).
 */
import { groupRows } from '../rules.js';
import { durationSchema } from '../../util/duration.js';
import { chiSquareHomogeneity, jensenShannonDistance } from '../stats.js';
import { perTool } from './counts.js';
/** The groups drift compares; `by` defaults to the service. */
export const driftBySchema = {
    type: 'array',
    items: { enum: ['service', 'model'] },
    minItems: 1,
    uniqueItems: true,
    default: ['service'],
};
export const drift = {
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
            window: { ...durationSchema, default: '1h' },
            baseline: { ...durationSchema, default: '24h' },
            p_value: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.001 },
            min_distance: { type: 'number', minimum: 0, maximum: 1, default: 0.1 },
            min_calls: { type: 'integer', minimum: 1, default: 50 },
            min_baseline_calls: { type: 'integer', minimum: 1, default: 200 },
            by: driftBySchema,
            service: { type: 'string', minLength: 1 },
        },
    },
    evaluate(p, data) {
        const out = [];
        const by = p.by ?? ['service'];
        const before = groupRows(data.baseline, by);
        for (const [key, g] of groupRows(data.current, by)) {
            const cur = perTool(g.rows);
            const base = perTool(before.get(key)?.rows ?? []);
            const tools = [...new Set([...cur.keys(), ...base.keys()])].sort();
            const a = tools.map((t) => base.get(t) ?? 0);
            const b = tools.map((t) => cur.get(t) ?? 0);
            const nBase = a.reduce((s, v) => s + v, 0);
            const nCur = b.reduce((s, v) => s + v, 0);
            const test = chiSquareHomogeneity([a, b]);
            const distance = jensenShannonDistance(a, b);
            const enough = nCur >= p.min_calls && nBase >= p.min_baseline_calls;
            const shifts = tools
                .map((tool, i) => ({ tool, before: nBase ? a[i] / nBase : 0, after: nCur ? b[i] / nCur : 0 }))
                .sort((x, y) => Math.abs(y.after - y.before) - Math.abs(x.after - x.before) || (x.tool < y.tool ? -1 : 1))
                .slice(0, 5);
            const moved = shifts
                .slice(0, 3)
                .map((s) => `${s.tool} ${(s.before * 100).toFixed(1)}% → ${(s.after * 100).toFixed(1)}%`)
                .join(', ');
            out.push({
                labels: g.labels,
                active: enough && test.pValue < p.p_value && distance >= p.min_distance,
                value: distance,
                threshold: p.min_distance,
                summary: enough
                    ? `tool mix moved: JS distance ${distance.toFixed(3)} (min ${p.min_distance}), chi-square p=${test.pValue.toExponential(2)}: ${moved}`
                    : `not enough calls to compare (${nCur} now, ${nBase} in the baseline)`,
                details: {
                    window: p.window,
                    baselineWindow: p.baseline,
                    total: nCur,
                    baselineTotal: nBase,
                    pValue: test.pValue,
                    chiSquare: test.statistic,
                    df: test.df,
                    distance,
                    shifts,
                },
            });
        }
        return out;
    },
};
//# sourceMappingURL=drift.js.map