/**
 * The replicated store end to end: the real app on a real PostgreSQL, spans from the real
 * OpenTelemetry exporter (whose timestamps carry sub-millisecond fractions), the same exact counts
 * and failure records as on SQLite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTurn } from '../helpers/agent.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient } from '../helpers/otel.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';

describe.skipIf(pgServer().skip)('OTLP ingest on PostgreSQL', () => {
  let tw: Harness;
  let url: string;
  beforeAll(async () => {
    url = await freshDatabase();
    tw = await startToolwatch({ config: { database_url: url } });
  });
  afterAll(async () => {
    await tw?.close();
    if (url) await dropDatabase(url);
  });

  it('counts each call once and keeps the failure records', async () => {
    const service = 'pg-agent';
    const client = otelClient(tw.url, { service, batchSize: 3 });
    agentTurn(client.tracer, 'pg-a');
    agentTurn(client.tracer, 'pg-b');
    await client.flush();
    await client.shutdown();
    await tw.services.pipeline.settle(Date.now() + 3_600_000);

    const text = await tw.metrics();
    for (const [outcome, tool] of [
      ['valid', 'get_weather'],
      ['InvalidJson', 'get_weather'],
      ['SchemaMismatch', 'get_weather'],
      ['UnknownName', '_unknown'],
    ]) {
      expect(
        metricValue(text, 'toolwatch_tool_calls_total', { service, outcome: outcome!, tool: tool! }),
        outcome,
      ).toBe(2);
    }
    expect(metricValue(text, 'toolwatch_ingest_rejected_total', { reason: 'unavailable' })).toBe(0);
    const failures = (await (await fetch(`${tw.url}/api/failures?service=${service}`)).json()) as {
      items: { timeMs: number; outcome: string }[];
    };
    expect(failures.items).toHaveLength(6);
    for (const f of failures.items) expect(Number.isInteger(f.timeMs)).toBe(true);
    const stats = (await (await fetch(`${tw.url}/api/stats?window=1h&service=${service}`)).json()) as {
      tools: { tool: string; total: number }[];
    };
    expect(stats.tools.find((t) => t.tool === 'get_weather')?.total).toBe(6);
    expect(await (await fetch(`${tw.url}/readyz`)).json()).toEqual({ status: 'ready', store: 'postgres' });
  });
});
