/**
 * End to end over a real socket with the real OpenTelemetry JS exporters (protobuf and JSON,
 * gzip), small export batches so one trace straddles several exports: exact per-outcome counts
 * on /metrics and the failure records on /api/failures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { agentTurn } from '../helpers/agent.js';
import { otelClient, type Wire } from '../helpers/otel.js';

describe('OTLP ingest with the real OpenTelemetry exporters', () => {
  let tw: Harness;
  beforeAll(async () => {
    tw = await startToolwatch();
  });
  afterAll(async () => {
    await tw.close();
  });

  const cases: { wire: Wire; gzip: boolean; service: string }[] = [
    { wire: 'proto', gzip: false, service: 'agent-proto' },
    { wire: 'json', gzip: false, service: 'agent-json' },
    { wire: 'proto', gzip: true, service: 'agent-proto-gzip' },
  ];

  it.each(cases)('counts each call once by outcome ($wire, gzip=$gzip)', async ({ wire, gzip, service }) => {
    const client = otelClient(tw.url, { wire, gzip, service, batchSize: 2 });
    agentTurn(client.tracer, `${service}-a`);
    agentTurn(client.tracer, `${service}-b`);
    await client.flush();
    await client.shutdown();
    // Tool spans may arrive before their proposals (concurrent exports); end every grace period.
    expect(await tw.services.pipeline.settle(Date.now() + 3_600_000)).toBe(0);

    const text = await tw.metrics();
    const calls = (outcome: string, tool?: string) =>
      metricValue(text, 'toolwatch_tool_calls_total', { service, outcome, ...(tool ? { tool } : {}) });
    expect(calls('valid', 'get_weather')).toBe(2);
    expect(calls('InvalidJson', 'get_weather')).toBe(2);
    expect(calls('UnknownName', '_unknown')).toBe(2);
    expect(calls('SchemaMismatch', 'get_weather')).toBe(2);
    expect(calls('unvalidated')).toBe(0);
    expect(text).not.toContain('get_wether');
    expect(
      metricValue(text, 'toolwatch_tool_calls_total', { service, model: 'gpt-4o-2024-08-06', outcome: 'valid' }),
    ).toBe(2);
    expect(metricValue(text, 'toolwatch_tool_executions_total', { service, tool: 'get_weather', status: 'ok' })).toBe(
      2,
    );
    expect(
      metricValue(text, 'toolwatch_tool_executions_total', { service, tool: 'get_weather', status: 'error' }),
    ).toBe(2);
    expect(metricValue(text, 'toolwatch_spans_received_total', { source: 'otlp' })).toBeGreaterThanOrEqual(10);

    const res = await fetch(`${tw.url}/api/failures?service=${service}&limit=10`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: Record<string, unknown>[]; nextCursor: string | null };
    expect(body.items).toHaveLength(6);
    const byOutcome = (o: string) => body.items.filter((f) => f.outcome === o);
    const mismatch = byOutcome('SchemaMismatch')[0]!;
    expect(mismatch.arguments).toBe('{"location":42,"extra":true}');
    expect(mismatch.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ instancePath: '/location', keyword: 'type', params: { type: 'string' } }),
        expect.objectContaining({
          instancePath: '',
          keyword: 'additionalProperties',
          params: { additionalProperty: 'extra' },
        }),
      ]),
    );
    expect(byOutcome('InvalidJson')[0]).toMatchObject({ arguments: '{"location": Par', tool: 'get_weather' });
    expect(byOutcome('UnknownName')[0]).toMatchObject({
      name: 'get_wether',
      tool: '_unknown',
      model: 'gpt-4o-2024-08-06',
    });
    expect(String(byOutcome('UnknownName')[0]!.traceId)).toMatch(/^[0-9a-f]{32}$/);

    const stats = (await (await fetch(`${tw.url}/api/stats?window=5m&service=${service}`)).json()) as {
      tools: { tool: string; total: number; errorRate: number }[];
    };
    const weather = stats.tools.find((t) => t.tool === 'get_weather')!;
    expect(weather.total).toBe(6);
    expect(weather.errorRate).toBeCloseTo(4 / 6);
  });

  it('does not count a resent batch twice', async () => {
    const service = 'agent-resend';
    const client = otelClient(tw.url, { service, batchSize: 100 });
    // Capture what the exporter sends, then send the very same spans a second time.
    const sent: Parameters<typeof client.exporter.export>[0][] = [];
    const realExport = client.exporter.export.bind(client.exporter);
    client.exporter.export = (spans, done) => {
      sent.push(spans);
      realExport(spans, done);
    };
    agentTurn(client.tracer, 'resend');
    await client.flush();
    for (const spans of sent) await new Promise<void>((resolve) => realExport(spans, () => resolve()));
    await client.shutdown();
    await tw.services.pipeline.settle(Date.now() + 3_600_000);

    const text = await tw.metrics();
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service })).toBe(4);
    expect(metricValue(text, 'toolwatch_tool_executions_total', { service })).toBe(2);
    expect(metricValue(text, 'toolwatch_duplicate_spans_total')).toBeGreaterThanOrEqual(3);
  });
});
