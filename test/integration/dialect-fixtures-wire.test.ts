/**
 * Every framework fixture (test/fixtures/dialects/) sent through the real OpenTelemetry exporters,
 * over OTLP/protobuf and OTLP/JSON, to a running toolwatch: the calls, outcomes, unvalidated reasons
 * and executions on /metrics are exactly the fixture's expected ones. The spans go out newest
 * first in small exports, so tool spans usually arrive before the model spans that proposed them.
 */
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDialectFixtures, tally } from '../helpers/dialect-fixtures.js';
import { readableSpans } from '../helpers/fixture-spans.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';

const fixtures = loadDialectFixtures();
const BATCH = 3;

async function send(exporter: SpanExporter, spans: ReadableSpan[]): Promise<void> {
  for (let i = 0; i < spans.length; i += BATCH) {
    const result = await new Promise<{ code: number; error?: Error }>((resolve) =>
      exporter.export(spans.slice(i, i + BATCH), resolve),
    );
    expect(result.code, String(result.error)).toBe(0);
  }
}

describe.each([
  ['proto', (url: string): SpanExporter => new ProtoExporter({ url })],
  ['json', (url: string): SpanExporter => new JsonExporter({ url })],
] as const)('framework fixtures over OTLP/%s', (wire, makeExporter) => {
  let tw: Harness;
  let text = '';
  const serviceOf = (fixture: string, traceId: string) => `${wire}:${fixture}:${traceId.slice(-8)}`;

  beforeAll(async () => {
    tw = await startToolwatch();
    const exporter = makeExporter(`${tw.url}/v1/traces`);
    for (const f of fixtures) {
      const spans = readableSpans(f.request, (traceId) => serviceOf(f.name, traceId));
      await send(exporter, spans.reverse());
    }
    await exporter.shutdown();
    await tw.services.pipeline.settle(Date.now() + 3_600_000);
    text = await tw.metrics();
  }, 60_000);

  afterAll(async () => {
    await tw.close();
  });

  const traces = fixtures.flatMap((f) => f.traces.map((t) => ({ fixture: f.name, t })));

  it.each(traces)('$fixture $t.traceId', ({ fixture, t }) => {
    const service = serviceOf(fixture, t.traceId);
    for (const [key, n] of Object.entries(tally(t.calls))) {
      const [tool, outcome] = key.split('|') as [string, string];
      expect(metricValue(text, 'toolwatch_tool_calls_total', { service, tool, outcome }), key).toBe(n);
    }
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service })).toBe(t.calls.length);
    // An unvalidated call's reason, an InvalidJson call's cause: each in its own metric.
    const reasons = new Map<string, number>();
    for (const c of t.calls)
      if (c.reason !== undefined) {
        const key = `${c.outcome === 'InvalidJson' ? 'toolwatch_invalid_json_total' : 'toolwatch_unvalidated_calls_total'}|${c.reason}`;
        reasons.set(key, (reasons.get(key) ?? 0) + 1);
      }
    for (const [key, n] of reasons) {
      const [metric, reason] = key.split('|') as [string, string];
      expect(metricValue(text, metric, { service, reason }), key).toBe(n);
    }
    expect(metricValue(text, 'toolwatch_tool_executions_total', { service })).toBe(t.executions);
  });
});
