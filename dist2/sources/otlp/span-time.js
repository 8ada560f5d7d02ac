import { SpanRejected } from './decode-common.js';
/** How far ahead of toolwatch's clock a span may end (clock skew between agents and toolwatch). */
export const MAX_FUTURE_MS = 24 * 3_600_000;
/** 2^63 − 1 ns (the int64 range the OTLP SDKs use), in ms: beyond it a time is not representable. */
export const MAX_REPRESENTABLE_MS = 9_223_372_036_854;
/**
 * The reason a span with these times (ms since the epoch; NaN = unreadable) must be rejected, or
 * null. `nowMs` undefined checks only that the times are representable.
 */
export function spanTimeProblem(startMs, endMs, eventTimesMs, nowMs) {
    const latest = nowMs === undefined ? MAX_REPRESENTABLE_MS : Math.min(MAX_REPRESENTABLE_MS, nowMs + MAX_FUTURE_MS);
    const bad = (t) => !(t >= 0 && t <= latest);
    if (bad(startMs) || bad(endMs))
        return timeReason('startTimeUnixNano/endTimeUnixNano', nowMs);
    for (const t of eventTimesMs)
        if (bad(t))
            return timeReason('event timeUnixNano', nowMs);
    return null;
}
const NO_TIMES = [];
/** At a decoder's span boundary: throws SpanRejected (the span's result) when its times are unusable. */
export function checkSpanTimes(startMs, endMs, events, nowMs) {
    const eventTimes = events.length === 0 ? NO_TIMES : events.map((e) => e.timeMs);
    const problem = spanTimeProblem(startMs, endMs, eventTimes, nowMs);
    if (problem !== null)
        throw new SpanRejected(problem);
}
function timeReason(field, nowMs) {
    return nowMs === undefined
        ? `${field} out of range (after year 2262)`
        : `${field} out of range (more than ${MAX_FUTURE_MS / 3_600_000} h after toolwatch's clock)`;
}
//# sourceMappingURL=span-time.js.map