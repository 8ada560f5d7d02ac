import { durationSchema } from '../../util/duration.js';
import { bySchema, groupRows, loadExecutionWindow, pct, } from '../rules.js';
import { executionTally, statusesSchema, topFailingExecutions } from './counts.js';
export const executionErrorRate = {
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
            window: { ...durationSchema, default: '5m' },
            threshold: { type: 'number', minimum: 0, maximum: 1, default: 0.01 },
            min_calls: { type: 'integer', minimum: 1, default: 20 },
            by: bySchema,
            statuses: statusesSchema,
            service: { type: 'string', minLength: 1 },
        },
    },
    load: loadExecutionWindow,
    evaluate(p, rows) {
        const out = [];
        const which = p.statuses.join(' or ');
        for (const g of groupRows(rows, p.by).values()) {
            const t = executionTally(g.rows, p.statuses);
            const rate = t.executions > 0 ? t.failed / t.executions : 0;
            const enough = t.executions >= p.min_calls;
            out.push({
                labels: g.labels,
                active: enough && rate > p.threshold,
                value: rate,
                threshold: p.threshold,
                summary: enough
                    ? `execution error rate ${pct(rate)} ${rate > p.threshold ? '>' : '≤'} ${pct(p.threshold)} ` +
                        `(${t.failed} of ${t.executions} executions ${which}, ${p.window})`
                    : `only ${t.executions} executions in ${p.window} (min_calls ${p.min_calls})`,
                details: {
                    window: p.window,
                    statuses: p.statuses,
                    executions: t.executions,
                    failedExecutions: t.failed,
                    topTools: topFailingExecutions(g.rows, p.statuses),
                },
            });
        }
        return out;
    },
};
//# sourceMappingURL=execution-error-rate.js.map