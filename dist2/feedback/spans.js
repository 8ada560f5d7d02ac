import { parseFeedbackValue } from './value.js';
/** In this order: the first one a span carries is read. */
export const FEEDBACK_ATTRIBUTES = ['toolwatch.feedback', 'user.feedback'];
export function feedbackFromSpans(spans) {
    let out;
    for (const s of spans) {
        const a = s.attributes;
        let name = FEEDBACK_ATTRIBUTES[0];
        let raw = a[name];
        if (raw === undefined)
            raw = a[(name = FEEDBACK_ATTRIBUTES[1])];
        if (raw === undefined)
            continue;
        out ??= { items: [], unreadable: 0 };
        const value = parseFeedbackValue(raw);
        if (value === undefined) {
            out.unreadable++;
            continue;
        }
        const comment = a[`${name}.comment`];
        const source = a[`${name}.source`];
        out.items.push({
            traceId: s.traceId,
            value,
            ...(typeof comment === 'string' && comment ? { comment: comment.slice(0, 2000) } : {}),
            source: typeof source === 'string' && source ? source.slice(0, 100) : 'span',
            service: s.service,
            timeMs: s.endTimeMs || s.startTimeMs,
            origin: 'span',
        });
    }
    return out;
}
//# sourceMappingURL=spans.js.map