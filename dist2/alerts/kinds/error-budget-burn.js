import { durationMs, durationSchema } from '../../util/duration.js';
import { bySchema, currentWindow, groupRows, pct, } from '../rules.js';
import { combinedTally, statusesSchema, tally, topFailingTools } from './counts.js';
/** A burn rate as people read it: 20×, 14.4×, 0.5×. */
export const times = (x) => `${Number(x.toFixed(1))}×`;
export const DEFAULT_BURN_WINDOWS = [
    { long: '1h', short: '5m', burn_rate: 14.4 },
    { long: '6h', short: '30m', burn_rate: 6 },
];
export const errorBudgetBurn = {
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
            objective: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.99 },
            windows: {
                type: 'array',
                minItems: 1,
                maxItems: 6,
                items: {
                    type: 'object',
                    additionalProperties: false,
                    required: ['long', 'short', 'burn_rate'],
                    properties: {
                        long: durationSchema,
                        short: durationSchema,
                        burn_rate: { type: 'number', exclusiveMinimum: 0 },
                    },
                },
            },
            min_calls: { type: 'integer', minimum: 1, default: 20 },
            by: bySchema,
            service: { type: 'string', minLength: 1 },
            include_execution: { type: 'boolean', default: false },
            statuses: statusesSchema,
        },
    },
    async load(p, io, now) {
        const data = new Map();
        const svc = p.service ? { service: p.service } : {};
        for (const w of new Set(windowsOf(p).flatMap((x) => [x.long, x.short]))) {
            const q = { ...currentWindow(now, durationMs(w)), ...svc };
            const calls = await io.callCounts(q);
            const executions = p.include_execution && io.executionCounts ? await io.executionCounts(q) : [];
            data.set(w, { calls, executions });
        }
        return data;
    },
    evaluate(p, data) {
        const budget = 1 - p.objective;
        const rate = (w, key) => {
            const d = data.get(w);
            const c = d ? (groupRows(d.calls, p.by).get(key)?.rows ?? []) : [];
            if (!p.include_execution) {
                const t = tally(c);
                return { failed: t.failed, calls: t.checked, rows: c };
            }
            const e = d ? (groupRows(d.executions, p.by).get(key)?.rows ?? []) : [];
            const t = combinedTally(c, e, p.statuses);
            return { failed: t.failed, calls: t.denominator, rows: c };
        };
        const groups = new Map();
        for (const d of data.values()) {
            for (const [key, g] of groupRows(d.calls, p.by))
                groups.set(key, g.labels);
            for (const [key, g] of groupRows(d.executions, p.by))
                groups.set(key, g.labels);
        }
        const out = [];
        for (const [key, labels] of groups) {
            const pairs = windowsOf(p).map((w) => {
                const long = rate(w.long, key);
                const short = rate(w.short, key);
                const burn = (x) => (x.calls > 0 ? x.failed / x.calls / budget : 0);
                const enough = long.calls >= p.min_calls;
                const firing = enough && burn(long) >= w.burn_rate && burn(short) >= w.burn_rate;
                return { w, long, short, longBurn: burn(long), shortBurn: burn(short), enough, firing };
            });
            // The pair the message is about: the first that fires, else the one closest to firing.
            const lead = pairs.find((x) => x.firing) ??
                pairs.reduce((a, b) => Math.min(b.longBurn, b.shortBurn) / b.w.burn_rate > Math.min(a.longBurn, a.shortBurn) / a.w.burn_rate ? b : a);
            out.push({
                labels,
                active: lead.firing,
                value: lead.longBurn,
                threshold: lead.w.burn_rate,
                summary: lead.enough
                    ? `error budget burning ${times(lead.longBurn)} over ${lead.w.long} and ${times(lead.shortBurn)} over ${lead.w.short} ` +
                        `(${lead.firing ? '≥' : 'alert at'} ${times(lead.w.burn_rate)} in both; objective ${pct(p.objective)}, ` +
                        `${lead.long.failed} of ${lead.long.calls} calls failed over ${lead.w.long})`
                    : `only ${lead.long.calls} calls in ${lead.w.long} (min_calls ${p.min_calls})`,
                details: {
                    window: lead.w.long,
                    checked: lead.long.calls,
                    failed: lead.long.failed,
                    topTools: topFailingTools(lead.long.rows),
                    objective: p.objective,
                    burn: pairs.map((x) => ({
                        long: x.w.long,
                        short: x.w.short,
                        burnRate: x.w.burn_rate,
                        longBurn: x.longBurn,
                        shortBurn: x.shortBurn,
                        firing: x.firing,
                    })),
                },
            });
        }
        return out;
    },
};
function windowsOf(p) {
    return p.windows ?? DEFAULT_BURN_WINDOWS;
}
//# sourceMappingURL=error-budget-burn.js.map