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
import { expectedTally, exportedOutcome, LIVE_RUNS, liveProposals, liveRequest } from '../helpers/live-python.js';

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
  const failures = new Map<string, { outcome: string; message: string }[]>();
  const serviceOf = (run: string) => `${wire}:${run}`;

  beforeAll(async () => {
    tw = await startToolwatch();
    const exporter = makeExporter(`${tw.url}/v1/traces`);
    for (const run of LIVE_RUNS) await send(exporter, readableSpans(liveRequest(run), () => serviceOf(run)).reverse());
    await exporter.shutdown();
    await tw.services.pipeline.settle(Date.now() + 3_600_000);
    text = await tw.metrics();
    for (const run of LIVE_RUNS) {
      const res = await fetch(`${tw.url}/api/failures?service=${encodeURIComponent(serviceOf(run))}&since=0&limit=100`);
      const body = (await res.json()) as { items: { outcome: string; message: string }[] };
      failures.set(run, body.items);
    }
  }, 60_000);

  afterAll(async () => {
    await tw.close();
  });

  it.each(LIVE_RUNS)('%s', (run) => {
    const service = serviceOf(run);
    const reasons = new Map<string, number>();
    for (const [key, n] of Object.entries(expectedTally(run))) {
      const [tool, outcome, reason] = key.split('|') as [string, string, string];
      expect(metricValue(text, 'toolwatch_tool_calls_total', { service, tool, outcome }), key).toBe(n);
      // The reason of an unvalidated call (an InvalidJson call's is its cause, on toolwatch_invalid_json_total).
      if (reason !== '' && outcome === 'unvalidated') reasons.set(reason, (reasons.get(reason) ?? 0) + n);
    }
    for (const [reason, n] of reasons)
      expect(metricValue(text, 'toolwatch_unvalidated_calls_total', { service, reason }), reason).toBe(n);
    expect(metricValue(text, 'toolwatch_unvalidated_calls_total', { service })).toBe(
      [...reasons.values()].reduce((a, b) => a + b, 0),
    );
    const total = liveProposals(run).length;
    // The schema a SchemaMismatch was found with is recorded with the failure when it came from the tool span.
    const fromToolSpan = run === 'strands' || run === 'openai-agents';
    for (const f of failures.get(run) ?? []) {
      if (f.outcome !== 'SchemaMismatch') continue;
      expect(f.message.endsWith('(schema from the tool span)'), f.message).toBe(fromToolSpan);
    }
    expect((failures.get(run) ?? []).filter((f) => f.outcome === 'SchemaMismatch').length).toBe(
      liveProposals(run).filter((p) => exportedOutcome(p).outcome === 'SchemaMismatch').length,
    );
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service })).toBe(total);
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service, model: 'gpt-4o-mini' })).toBe(total);
  });
});
