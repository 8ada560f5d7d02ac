/**
 * Alert rule kind `negative_feedback_rate`: per service (or for one `service`), the share of traces
 * with user feedback in `window` whose feedback is negative is above `threshold`, once
 * `min_feedback` traces got feedback. Windows are whole minutes, the current one included, as for
 * every other rule. evaluate() is pure; load() reads the feedback store through RuleIO (`io.feedback`,
 * the source feedback adds to alerts' RuleSources below).
 */
import { currentWindow, pct } from '../alerts/rules.js';
import { durationMs, durationSchema } from '../util/duration.js';
export function evaluateNegativeFeedbackRate(p, rates) {
    return rates
        .filter((r) => !p.service || r.service === p.service)
        .map((r) => {
        const rate = r.traces > 0 ? r.negative / r.traces : 0;
        const enough = r.traces >= p.min_feedback;
        return {
            labels: { service: r.service },
            active: enough && rate > p.threshold,
            value: rate,
            threshold: p.threshold,
            summary: enough
                ? `negative feedback on ${pct(rate)} of traces ${rate > p.threshold ? '>' : '≤'} ${pct(p.threshold)} ` +
                    `(${r.negative} of ${r.traces} with feedback, ${p.window})`
                : `only ${r.traces} traces with feedback in ${p.window} (min_feedback ${p.min_feedback})`,
            details: { window: p.window, total: r.traces, negative: r.negative },
        };
    });
}
export const negativeFeedbackRate = {
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
            window: { ...durationSchema, default: '1h' },
            threshold: { type: 'number', minimum: 0, maximum: 1, default: 0.2 },
            min_feedback: { type: 'integer', minimum: 1, default: 10 },
            service: { type: 'string', minLength: 1 },
        },
    },
    async load(p, io, now) {
        if (!io.feedback)
            return [];
        return io.feedback.rates({
            ...currentWindow(now, durationMs(p.window)),
            ...(p.service ? { service: p.service } : {}),
        });
    },
    evaluate: (p, data) => evaluateNegativeFeedbackRate(p, data),
};
//# sourceMappingURL=alert-kind.js.map