/**
 * Span times at decode (both OTLP decoders): a time toolwatch cannot store or show rejects its span
 * (partialSuccess), so one bad span can neither break every later read of the failures list
 * (`new Date(1e19)` throws) nor make PostgreSQL refuse the whole batch forever (bigint overflow), nor
 * sit in the store beyond retention. Pure: the caller passes the clock.
 *
 * Accepted: 0 (unset, as OTLP allows; the receive time is used instead) or a time from the epoch up
 * to `MAX_FUTURE_MS` past now. Anything later is a clock far off or a forged value; the span is
 * rejected with the reason, the rest of the batch is counted.
 */
import type { SpanEvent } from '../../model.js';
import { SpanRejected } from './decode-common.js';

/** How far ahead of toolwatch's clock a span may end (clock skew between agents and toolwatch). */
export const MAX_FUTURE_MS = 24 * 3_600_000;

/** 2^63 − 1 ns (the int64 range the OTLP SDKs use), in ms: beyond it a time is not representable. */
export const MAX_REPRESENTABLE_MS = 9_223_372_036_854;

/**
 * The reason a span with these times (ms since the epoch; NaN = unreadable) must be rejected, or
 * null. `nowMs` undefined checks only that the times are representable.
 */
export function spanTimeProblem(
  startMs: number,
  endMs: number,
  eventTimesMs: readonly number[],
  nowMs: number | undefined,
): string | null {
  const latest = nowMs === undefined ? MAX_REPRESENTABLE_MS : Math.min(MAX_REPRESENTABLE_MS, nowMs + MAX_FUTURE_MS);
  if (!inRange(startMs, latest) || !inRange(endMs, latest))
    return timeReason('startTimeUnixNano/endTimeUnixNano', nowMs);
  for (const t of eventTimesMs) if (!inRange(t, latest)) return timeReason('event timeUnixNano', nowMs);
  return null;
}

/** A time from the epoch up to `latest` (NaN is not): a plain function, not a closure made per span. */
function inRange(t: number, latest: number): boolean {
  return t >= 0 && t <= latest;
}

const NO_TIMES: readonly number[] = [];

/** At a decoder's span boundary: throws SpanRejected (the span's result) when its times are unusable. */
export function checkSpanTimes(
  startMs: number,
  endMs: number,
  events: readonly SpanEvent[],
  nowMs: number | undefined,
): void {
  const eventTimes = events.length === 0 ? NO_TIMES : events.map((e) => e.timeMs);
  const problem = spanTimeProblem(startMs, endMs, eventTimes, nowMs);
  if (problem !== null) throw new SpanRejected(problem);
}

function timeReason(field: string, nowMs: number | undefined): string {
  return nowMs === undefined
    ? `${field} out of range (after year 2262)`
    : `${field} out of range (more than ${MAX_FUTURE_MS / 3_600_000} h after toolwatch's clock)`;
}
