/**
 * The logs decoder over what the OpenTelemetry JS SDK's own serializers write (protobuf and JSON):
 * GenAI events by `event_name` or, from older SDKs, the `event.name` attribute, with trace and span
 * ids, attributes and body; every other record only counted.
 */
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { describe, expect, it } from 'vitest';
import { decodeLogsJson, decodeLogsProtobuf } from '../../../src/sources/otlp/decode-logs.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const resource = resourceFromAttributes({ 'service.name': 'agent' });
const scope = { name: 'opentelemetry.instrumentation.openai_v2', version: '2.1b0' };

function rec(over: Partial<ReadableLogRecord>): ReadableLogRecord {
  return {
    hrTime: [1_700_000_000, 500_000_000],
    hrTimeObserved: [1_700_000_000, 600_000_000],
    spanContext: { traceId: TRACE, spanId: SPAN, traceFlags: 1 },
    resource,
    instrumentationScope: scope,
    attributes: {},
    droppedAttributesCount: 0,
    ...over,
  } as ReadableLogRecord;
}

const records = [
  rec({
    eventName: 'gen_ai.choice',
    attributes: { 'gen_ai.system': 'openai' },
    body: { index: 0, finish_reason: 'stop' },
  }),
  rec({ attributes: { 'event.name': 'gen_ai.user.message', 'gen_ai.system': 'openai' }, body: { content: 'hi' } }),
  rec({ body: 'GET /health 200', attributes: { 'http.route': '/health' } }),
  rec({ eventName: 'gen_ai.choice', spanContext: undefined, body: { index: 0 } }),
];

describe.each([
  ['protobuf', () => decodeLogsProtobuf(ProtobufLogsSerializer.serializeRequest(records)!)],
  ['json', () => decodeLogsJson(JsonLogsSerializer.serializeRequest(records)!)],
])('%s', (_wire, decode) => {
  it('keeps the GenAI events with their span, counts the rest', () => {
    const d = decode();
    if (!d.ok) throw new Error(d.message);
    expect(d.other).toBe(1);
    expect(d.unjoinable).toBe(1);
    expect(d.rejected).toBe(0);
    expect(
      d.events.map((e) => ({
        name: e.name,
        traceId: e.traceId,
        spanId: e.spanId,
        service: e.service,
        scope: e.scope,
        timeMs: e.timeMs,
        system: e.attributes['gen_ai.system'],
        body: JSON.parse(JSON.stringify(e.body)) as unknown,
      })),
    ).toEqual([
      {
        name: 'gen_ai.choice',
        traceId: TRACE,
        spanId: SPAN,
        service: 'agent',
        scope: scope.name,
        timeMs: 1_700_000_000_500,
        system: 'openai',
        body: { index: 0, finish_reason: 'stop' },
      },
      {
        name: 'gen_ai.user.message',
        traceId: TRACE,
        spanId: SPAN,
        service: 'agent',
        scope: scope.name,
        timeMs: 1_700_000_000_500,
        system: 'openai',
        body: { content: 'hi' },
      },
    ]);
  });
});
