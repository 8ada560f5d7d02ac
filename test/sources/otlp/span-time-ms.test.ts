/**
 * Span times decoded to milliseconds keep their whole milliseconds exact: nanoseconds since the epoch
 * are past 2^53, so dividing them as one double put about one span in seven that started on a whole
 * millisecond a fraction below it — a minute early once floored at a minute boundary. Times from the
 * real OTel SDK serializers, both encodings, at whole seconds that the old arithmetic got wrong.
 */
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { decodeJson } from '../../../src/sources/otlp/decode-json.js';
import { decodeProtobuf } from '../../../src/sources/otlp/decode-protobuf.js';

// Whole seconds (and one whole millisecond) where Math.floor(Number(ns) / 1e6) is one millisecond short.
const SECONDS = [1796279997, 1796180323, 1700000060, 1800000000];
const naive = (ms: number) => Math.floor(Number(`${ms}000000`) / 1e6);

function spans(startMs: number) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'svc' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const span = provider.getTracer('t').startSpan('chat', { startTime: startMs }, ROOT_CONTEXT);
  span.end(startMs + 1000);
  return exporter.getFinishedSpans();
}

describe('span times in whole milliseconds', () => {
  const cases = [...SECONDS.map((s) => s * 1000), 1796279997002];
  it('the table holds times the naive division gets wrong', () => {
    expect(cases.filter((ms) => naive(ms) !== ms).length).toBeGreaterThan(0);
  });
  it.each(cases)('%d ms: protobuf and JSON decode to exactly that millisecond', (ms) => {
    const sdk = spans(ms);
    const proto = decodeProtobuf(ProtobufTraceSerializer.serializeRequest(sdk)!);
    const json = decodeJson(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(sdk)!));
    for (const res of [proto, json]) {
      if (!res.ok) throw new Error(res.message);
      expect(Math.floor(res.spans[0]!.startTimeMs)).toBe(ms);
      expect(Math.floor(res.spans[0]!.endTimeMs)).toBe(ms + 1000);
    }
  });
});
