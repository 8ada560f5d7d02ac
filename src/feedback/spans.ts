/**
 * Feedback carried by spans: any span of a trace may say what the user thought of it with
 * `toolwatch.feedback` (or `user.feedback`), optionally with `<name>.comment` and `<name>.source`.
 * No dialect reads these (the span is usually a plain application span), so the pipeline hands the
 * raw spans here: one or two key lookups per span, nothing more, on the ingest hot path. Pure.
 */
import type { Span } from '../model.js';
import { parseFeedbackValue, type FeedbackItem } from './value.js';

/** In this order: the first one a span carries is read. */
export const FEEDBACK_ATTRIBUTES = ['toolwatch.feedback', 'user.feedback'] as const;

export interface SpanFeedback {
  items: FeedbackItem[];
  /** Spans whose feedback attribute held no readable value. */
  unreadable: number;
}

/**
 * One span's feedback into `out` (made at the first span that carries any); returns `out`. Span by
 * span, so a batch can be read while it is read anyway (its spans fresh in the CPU's caches) and
 * recorded after its commit without keeping its spans.
 */
export function addSpanFeedback(s: Span, out: SpanFeedback | undefined): SpanFeedback | undefined {
  const a = s.attributes;
  let name: string = FEEDBACK_ATTRIBUTES[0];
  let raw = a[name];
  if (raw === undefined) raw = a[(name = FEEDBACK_ATTRIBUTES[1])];
  if (raw === undefined) return out;
  out ??= { items: [], unreadable: 0 };
  const value = parseFeedbackValue(raw);
  if (value === undefined) {
    out.unreadable++;
    return out;
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
  return out;
}
