/**
 * A stored OTLP/JSON request turned back into the ReadableSpans an SDK hands its exporter, so the
 * real OpenTelemetry exporters (protobuf and JSON) can send a framework fixture over the wire.
 * Objects become kvlist values and lists array values, exactly as the exporter's transformer
 * encodes them; the span API could not set them.
 */
import { type SpanKind, TraceFlags, type Attributes, type HrTime } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

type Json = Record<string, unknown>;

/** An OTLP/JSON AnyValue → the plain JS value the exporter serialises back into it. */
function anyValue(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Json;
  if ('stringValue' in o) return o['stringValue'];
  if ('boolValue' in o) return o['boolValue'];
  if ('intValue' in o) return Number(o['intValue']);
  if ('doubleValue' in o) return Number(o['doubleValue']);
  if ('arrayValue' in o) return (((o['arrayValue'] as Json)['values'] as unknown[]) ?? []).map(anyValue);
  if ('kvlistValue' in o) return keyValues(((o['kvlistValue'] as Json)['values'] as unknown[]) ?? []);
  return undefined;
}

function keyValues(list: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list) {
    const { key, value } = kv as { key: string; value: unknown };
    const v = anyValue(value);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function hrTime(nanos: unknown): HrTime {
  const n = BigInt(String(nanos ?? '0'));
  return [Number(n / 1_000_000_000n), Number(n % 1_000_000_000n)];
}

/**
 * Every span of the request, each with `service(traceId, original)` as its resource's service.name
 * (so a test can keep fixtures and traces apart in the metrics).
 */
export function readableSpans(request: Json, service: (traceId: string, original: string) => string): ReadableSpan[] {
  const out: ReadableSpan[] = [];
  for (const rs of (request['resourceSpans'] as Json[]) ?? []) {
    const resourceAttrs = keyValues(((rs['resource'] as Json | undefined)?.['attributes'] as unknown[]) ?? []);
    const original =
      typeof resourceAttrs['service.name'] === 'string' ? resourceAttrs['service.name'] : 'unknown_service';
    for (const ss of (rs['scopeSpans'] as Json[]) ?? []) {
      const scope = (ss['scope'] as Json | undefined) ?? {};
      for (const sp of (ss['spans'] as Json[]) ?? []) {
        const traceId = String(sp['traceId']);
        const spanId = String(sp['spanId']);
        const parent =
          typeof sp['parentSpanId'] === 'string' && sp['parentSpanId'] !== '' ? sp['parentSpanId'] : undefined;
        const status = (sp['status'] as { code?: number; message?: string } | undefined) ?? {};
        const start = hrTime(sp['startTimeUnixNano']);
        const end = hrTime(sp['endTimeUnixNano']);
        out.push({
          name: String(sp['name'] ?? ''),
          kind: Math.max(0, Number(sp['kind'] ?? 1) - 1) as SpanKind,
          spanContext: () => ({ traceId, spanId, traceFlags: TraceFlags.SAMPLED }),
          ...(parent ? { parentSpanContext: { traceId, spanId: parent, traceFlags: TraceFlags.SAMPLED } } : {}),
          startTime: start,
          endTime: end,
          status: { code: status.code ?? 0, ...(status.message ? { message: status.message } : {}) },
          attributes: keyValues((sp['attributes'] as unknown[]) ?? []) as Attributes,
          links: [],
          events: ((sp['events'] as Json[]) ?? []).map((e) => ({
            name: String(e['name'] ?? ''),
            time: hrTime(e['timeUnixNano']),
            attributes: keyValues((e['attributes'] as unknown[]) ?? []) as Attributes,
          })),
          duration: [Math.max(0, end[0] - start[0]), 0],
          ended: true,
          resource: resourceFromAttributes({ 'service.name': service(traceId, original) }),
          instrumentationScope: {
            name: String(scope['name'] ?? ''),
            ...(typeof scope['version'] === 'string' ? { version: scope['version'] } : {}),
          },
          droppedAttributesCount: 0,
          droppedEventsCount: 0,
          droppedLinksCount: 0,
        });
      }
    }
  }
  return out;
}
