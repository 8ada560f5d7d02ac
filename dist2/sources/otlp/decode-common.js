export const DEFAULT_DECODE_LIMITS = Object.freeze({ maxDepth: 32 });
export const MAX_REASONS = 5;
export const DEFAULT_SERVICE = 'unknown_service';
/**
 * Thrown inside one span's decoding (however deep: an attribute nested too far) and caught at that
 * span's boundary, where it becomes the span's result. Never escapes a decoder.
 */
export class SpanRejected extends Error {
    reason;
    constructor(reason) {
        super(reason);
        this.reason = reason;
    }
}
/** Runs one span's decoder and turns a rejection into the span's result. */
export function spanResult(decode) {
    try {
        return { ok: true, span: decode() };
    }
    catch (err) {
        if (err instanceof SpanRejected)
            return { ok: false, reason: err.reason };
        throw err;
    }
}
/** The request's spans from the per-span results: read ones in order, rejected ones counted with the first few distinct reasons. */
export function collect(results) {
    const spans = [];
    const reasons = [];
    let rejected = 0;
    for (const r of results) {
        if (r.ok)
            spans.push(r.span);
        else {
            rejected++;
            if (reasons.length < MAX_REASONS && !reasons.includes(r.reason))
                reasons.push(r.reason);
        }
    }
    return { ok: true, spans, rejectedSpans: rejected, rejectReasons: reasons };
}
export function toSpanKind(n) {
    return (Number.isInteger(n) && n >= 0 && n <= 5 ? n : 0);
}
export function toStatusCode(n) {
    return (Number.isInteger(n) && n >= 0 && n <= 2 ? n : 0);
}
export function resolveMaxDepth(limits) {
    const d = limits?.maxDepth;
    return typeof d === 'number' && d >= 1 ? Math.floor(d) : DEFAULT_DECODE_LIMITS.maxDepth;
}
export function depthReason(maxDepth) {
    return `attribute value nested deeper than ${maxDepth} levels`;
}
export const NO_SCOPE = Object.freeze({ name: '', version: '' });
/** A fresh null-prototype attribute object. */
export function newAttrs() {
    return Object.create(null);
}
/** All spans are built with this literal so they share one hidden class. */
export function newSpan(traceId, spanId, parentSpanId, name, kind, startTimeMs, endTimeMs, statusCode, statusMessage, attributes, events, service, scope, scopeVersion) {
    return {
        traceId,
        spanId,
        parentSpanId,
        name,
        kind,
        startTimeMs,
        endTimeMs,
        statusCode,
        statusMessage,
        attributes,
        events,
        service,
        scope,
        scopeVersion,
    };
}
export function errorMessage(err) {
    if (err instanceof Error)
        return err.message;
    return String(err);
}
//# sourceMappingURL=decode-common.js.map