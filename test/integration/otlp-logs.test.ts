/**
 * POST /v1/logs through the real OpenTelemetry exporters (logs and traces, protobuf and JSON): the
 * GenAI events of OpenTelemetry's OpenAI instrumentation, in each of its modes, joined to their span
 * and counted exactly once with the span's model — whether the records arrive before or after the
 * span, and whether the span carries the same event itself. Other records are counted and dropped.
 */
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCalls, MODEL, SCOPE, scenario, type Mode } from '../helpers/genai-logs.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';

const MODES: Mode[] = [
  'events-content',
  'events-no-content',
  'details-event',
  'events-and-span-event',
  'details-span-and-event',
];
const ORDERS = ['logs first', 'span first'] as const;
const cases = MODES.flatMap((mode) => ORDERS.map((order) => ({ mode, order })));

type Exporter = {
  export(items: never[], done: (r: { code: number; error?: Error }) => void): void;
  shutdown(): Promise<void>;
};

function send(exporter: Exporter, items: unknown[]): Promise<void> {
  return new Promise((resolve, reject) =>
    exporter.export(items as never[], (r) =>
      r.code === 0 ? resolve() : reject(r.error ?? new Error('export failed')),
    ),
  );
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

describe.each([
  ['proto', (u: string) => new ProtoExporter({ url: u }), (u: string) => new ProtoLogExporter({ url: u })],
  ['json', (u: string) => new JsonExporter({ url: u }), (u: string) => new JsonLogExporter({ url: u })],
] as const)('GenAI log records over OTLP/%s', (wire, traceExporter, logExporter) => {
  let tw: Harness;
  let text = '';
  const serviceOf = (mode: Mode, order: string) => `${wire}:${mode}:${order}`;

  beforeAll(async () => {
    tw = await startToolwatch();
    const spans = traceExporter(`${tw.url}/v1/traces`) as unknown as Exporter;
    const logs = logExporter(`${tw.url}/v1/logs`) as unknown as Exporter;
    let n = 1;
    for (const { mode, order } of cases) {
      const s = scenario(mode, serviceOf(mode, order), hex(n, 32), hex(n, 16), Date.now() - 1000);
      n++;
      if (order === 'logs first') {
        await send(logs, s.logs);
        await send(spans, s.spans);
      } else {
        await send(spans, s.spans);
        await send(logs, s.logs);
      }
    }
    // A log record that is no GenAI event, and a GenAI event outside any span.
    const resource = resourceFromAttributes({ 'service.name': `${wire}:other` });
    const plain = {
      hrTime: [1, 0],
      hrTimeObserved: [1, 0],
      body: 'GET /health 200',
      resource,
      instrumentationScope: { name: 'app' },
      attributes: { 'http.route': '/health' },
      droppedAttributesCount: 0,
    } as unknown as ReadableLogRecord;
    const loose = { ...plain, eventName: 'gen_ai.choice', instrumentationScope: { name: SCOPE } } as ReadableLogRecord;
    await send(logs, [plain, plain, loose]);
    await (spans as unknown as SpanExporter).shutdown();
    await (logs as unknown as LogRecordExporter).shutdown();
    await tw.services.pipeline.settle(Date.now() + 3_600_000);
    text = await tw.metrics();
  }, 60_000);

  afterAll(async () => {
    await tw.close();
  });

  it.each(cases)('$mode, $order: each call counted once, with the span model', ({ mode, order }) => {
    const service = serviceOf(mode, order);
    const want = expectedCalls(mode);
    for (const [key, count] of Object.entries(want)) {
      const [tool, outcome] = key.split('|') as [string, string];
      expect(metricValue(text, 'toolwatch_tool_calls_total', { service, tool, outcome }), key).toBe(count);
    }
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service })).toBe(3);
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service, model: MODEL })).toBe(3);
  });

  it('other records and GenAI events outside a span are counted and dropped', () => {
    expect(metricValue(text, 'toolwatch_log_records_received_total', { kind: 'other' })).toBe(2);
    expect(metricValue(text, 'toolwatch_log_records_received_total', { kind: 'genai_without_span' })).toBe(1);
    const records = cases.reduce((s, c) => s + (c.mode.startsWith('details') ? 1 : 2), 0);
    expect(metricValue(text, 'toolwatch_log_records_received_total', { kind: 'genai_event' })).toBe(records);
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service: `${wire}:other` })).toBe(0);
  });
});
