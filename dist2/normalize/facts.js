import { spanStatus } from './exec-status.js';
import { str, toToolArgs, resultText } from '../util/values.js';
export function baseFacts(span, dialect, role) {
    const f = {
        dialect,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId,
        service: span.service,
        startTimeMs: span.startTimeMs,
        endTimeMs: span.endTimeMs,
        role,
        proposals: [],
        replays: [],
    };
    if (span.statusCode === 2)
        f.error = str(span.attributes, 'error.type') ?? (span.statusMessage || 'error');
    return f;
}
/**
 * A tool execution; failed on span status ERROR, an `error.type` or a failing HTTP/gRPC status on the
 * span, classified by exec-status.ts (HTTP client children are added later, in the pipeline).
 */
export function execution(span, name, callId, args, result) {
    const s = spanStatus(span);
    const e = {
        name,
        args: toToolArgs(args),
        status: s.status,
        durationMs: Math.max(0, span.endTimeMs - span.startTimeMs),
    };
    if (callId !== undefined)
        e.callId = callId;
    if (s.errorType !== undefined)
        e.errorType = s.errorType;
    if (s.httpStatus !== undefined)
        e.httpStatus = s.httpStatus;
    const r = resultText(result);
    if (r !== undefined)
        e.result = r;
    return e;
}
/**
 * Defines a fact that is computed on first read. Input history (the whole conversation, replayed
 * on every model span) is the costliest attribute to parse and is needed only for the few sampled
 * trajectories, never to count calls — so readers define `replays` and `userMessage` lazily.
 * Assigning the property replaces the getter with the plain value.
 */
export function lazyFact(f, key, compute) {
    const settle = (value) => Object.defineProperty(f, key, { value, writable: true, enumerable: true, configurable: true });
    Object.defineProperty(f, key, {
        get() {
            const value = compute();
            settle(value);
            return value;
        },
        set: settle,
        enumerable: true,
        configurable: true,
    });
}
//# sourceMappingURL=facts.js.map