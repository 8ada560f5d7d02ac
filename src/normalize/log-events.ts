/**
 * GenAI events that arrived as OTLP log records (sources/otlp/decode-logs.ts) as the span events they
 * stand for: one span per trace, span id and service, carrying each record as an event (its body as
 * the event's `body`, as the older conventions' span events do) and the records' attributes on the
 * span itself (`gen_ai.system`, and the model and messages of an operation-details event). The
 * dialect readers then read them exactly as span events; the pipeline joins them to their real span.
 */
import { newAttrObject, type LogEvent, type Span, type SpanEvent } from '../model.js';

export function logEventSpans(events: readonly LogEvent[]): Span[] {
  const spans = new Map<string, Span>();
  for (const e of events) {
    const key = `${e.traceId}\u0000${e.spanId}\u0000${e.service}`;
    let s = spans.get(key);
    if (!s) {
      s = {
        traceId: e.traceId,
        spanId: e.spanId,
        parentSpanId: '',
        name: e.name,
        kind: 0,
        startTimeMs: e.timeMs,
        endTimeMs: e.timeMs,
        statusCode: 0,
        statusMessage: '',
        attributes: newAttrObject(),
        events: [],
        service: e.service,
        scope: e.scope,
        scopeVersion: e.scopeVersion,
      };
      spans.set(key, s);
    }
    if (e.timeMs < s.startTimeMs) s.startTimeMs = e.timeMs;
    if (e.timeMs > s.endTimeMs) s.endTimeMs = e.timeMs;
    Object.assign(s.attributes, e.attributes);
    const attributes = newAttrObject();
    Object.assign(attributes, e.attributes);
    if (e.body !== null) attributes['body'] = e.body;
    const ev: SpanEvent = { name: e.name, timeMs: e.timeMs, attributes };
    s.events.push(ev);
  }
  return [...spans.values()];
}
