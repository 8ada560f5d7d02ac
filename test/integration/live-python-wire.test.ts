/**
 * The spans real Python frameworks exported live (../shared/fixtures/live-python/) sent through the
 * real OpenTelemetry exporters, over OTLP/protobuf and OTLP/JSON, to a running toolwatch: every call
 * the scripted model proposed is on /metrics once, under its outcome and the proposing model. Spans
 * go out newest first in small exports, so tool spans usually arrive before their proposals.
 */
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readableSpans } from '../helpers/fixture-spans.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { expectedTally, LIVE_RUNS, liveProposals, liveRequest } from '../helpers/live-python.js';

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
] as const)('live Python runs over OTLP/%s', (wire, makeExporter) => {
  let tw: Harness;
  let text = '';
  const serviceOf = (run: string) => `${wire}:${run}`;

  beforeAll(async () => {
    tw = await startToolwatch();
    const exporter = makeExporter(`${tw.url}/v1/traces`);
    for (const run of LIVE_RUNS) await send(exporter, readableSpans(liveRequest(run), () => serviceOf(run)).reverse());
    await exporter.shutdown();
    await tw.services.pipeline.settle(Date.now() + 3_600_000);
    text = await tw.metrics();
  }, 60_000);

  afterAll(async () => {
    await tw.close();
  });

  it.each(LIVE_RUNS)('%s', (run) => {
    const service = serviceOf(run);
    for (const [key, n] of Object.entries(expectedTally(run))) {
      const [tool, outcome] = key.split('|') as [string, string];
      expect(metricValue(text, 'toolwatch_tool_calls_total', { service, tool, outcome }), key).toBe(n);
    }
    const total = liveProposals(run).length;
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service })).toBe(total);
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service, model: 'gpt-4o-mini' })).toBe(total);
  });
});
