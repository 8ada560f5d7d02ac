import { durationSchema } from '../../util/duration.js';
import { bySchema, groupRows, loadCallWindows, loadExecutionWindow, pct, } from '../rules.js';
import { combinedTally, statusesSchema, tally, topFailingTools } from './counts.js';
export const errorRate = {
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
            window: { ...durationSchema, default: '5m' },
            threshold: { type: 'number', minimum: 0, maximum: 1, default: 0.01 },
            min_calls: { type: 'integer', minimum: 1, default: 20 },
            by: bySchema,
            service: { type: 'string', minLength: 1 },
            include_execution: { type: 'boolean', default: false },
            statuses: statusesSchema,
        },
    },
    async load(p, io, now) {
        const calls = await loadCallWindows(p, io, now);
        if (!p.include_execution || !io.executionCounts)
            return calls;
        return { ...calls, executions: await loadExecutionWindow(p, io, now) };
    },
    evaluate(p, data) {
        return p.include_execution ? combined(p, data) : structural(p, data);
    },
};
function structural(p, data) {
    const out = [];
    for (const g of groupRows(data.current, p.by).values()) {
        const t = tally(g.rows);
        const rate = t.checked > 0 ? t.failed / t.checked : 0;
        const enough = t.checked >= p.min_calls;
        out.push({
            labels: g.labels,
            active: enough && rate > p.threshold,
            value: rate,
            threshold: p.threshold,
            summary: enough
                ? `error rate ${pct(rate)} ${rate > p.threshold ? '>' : '≤'} ${pct(p.threshold)} (${t.failed} of ${t.checked} checked calls failed, ${p.window})`
                : `only ${t.checked} checked calls in ${p.window} (min_calls ${p.min_calls})`,
            details: {
                window: p.window,
                checked: t.checked,
                failed: t.failed,
                total: t.total,
                topTools: topFailingTools(g.rows),
            },
        });
    }
    return out;
}
function combined(p, data) {
    const out = [];
    const calls = groupRows(data.current, p.by);
    const executions = groupRows(data.executions ?? [], p.by);
    const keys = [...new Set([...calls.keys(), ...executions.keys()])];
    const which = p.statuses.join(' or ');
    for (const key of keys) {
        const c = calls.get(key);
        const e = executions.get(key);
        const labels = (c ?? e).labels;
        const t = combinedTally(c?.rows ?? [], e?.rows ?? [], p.statuses);
        const rate = t.denominator > 0 ? t.failed / t.denominator : 0;
        const enough = t.denominator >= p.min_calls;
        out.push({
            labels,
            active: enough && rate > p.threshold,
            value: rate,
            threshold: p.threshold,
            summary: enough
                ? `tool-call error rate ${pct(rate)} ${rate > p.threshold ? '>' : '≤'} ${pct(p.threshold)} (${t.failed} of ${t.denominator} calls: ` +
                    `${t.structural} failed the check, ${t.downstream} more ${which} downstream, ${p.window})`
                : `only ${t.denominator} calls in ${p.window} (min_calls ${p.min_calls})`,
            details: {
                window: p.window,
                checked: t.denominator,
                failed: t.structural,
                downstreamFailed: t.downstream,
                statuses: p.statuses,
                total: tally(c?.rows ?? []).total,
                topTools: topFailingTools(c?.rows ?? []),
            },
        });
    }
    return out;
}
//# sourceMappingURL=error-rate.js.map