/**
 * unvalidated_share: the share of calls nobody could check (no arguments captured, no schema,
 * a schema that does not compile). A rise means instrumentation stopped capturing what the
 * other rules need — it silently blinds them — so it gets a rule of its own.
 */
import { bySchema, groupRows, pct, } from '../rules.js';
import { durationSchema } from '../../util/duration.js';
import { tally } from './counts.js';
export const unvalidatedShare = {
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
            window: { ...durationSchema, default: '15m' },
            threshold: { type: 'number', minimum: 0, maximum: 1, default: 0.25 },
            min_calls: { type: 'integer', minimum: 1, default: 20 },
            by: bySchema,
            service: { type: 'string', minLength: 1 },
        },
    },
    evaluate(p, data) {
        const out = [];
        for (const g of groupRows(data.current, p.by).values()) {
            const t = tally(g.rows);
            const share = t.total > 0 ? t.unvalidated / t.total : 0;
            const enough = t.total >= p.min_calls;
            const byTool = new Map();
            for (const r of g.rows)
                if (r.outcome === 'unvalidated')
                    byTool.set(r.tool, (byTool.get(r.tool) ?? 0) + Number(r.count));
            out.push({
                labels: g.labels,
                active: enough && share > p.threshold,
                value: share,
                threshold: p.threshold,
                summary: enough
                    ? `unvalidated share ${pct(share)} ${share > p.threshold ? '>' : '≤'} ${pct(p.threshold)} (${t.unvalidated} of ${t.total} calls, ${p.window})`
                    : `only ${t.total} calls in ${p.window} (min_calls ${p.min_calls})`,
                details: {
                    window: p.window,
                    total: t.total,
                    unvalidated: t.unvalidated,
                    topTools: [...byTool]
                        .sort((a, b) => b[1] - a[1])
                        .slice(0, 5)
                        .map(([tool, n]) => ({ tool, failed: n, checked: 0 })),
                },
            });
        }
        return out;
    },
};
//# sourceMappingURL=unvalidated-share.js.map