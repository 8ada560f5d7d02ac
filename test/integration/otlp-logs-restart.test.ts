/**
 * Calls that wait across a restart: the GenAI log records of a span that had not arrived, and a
 * proposal waiting for its tool span's schema, are stored with their batch; the next process on the
 * same database puts them back, and counts them once the span arrives — with the span's model, and
 * against the tool span's schema.
 */
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { afterEach, describe, expect, it } from 'vitest';
import { expectedCalls, MODEL, scenario } from '../helpers/genai-logs.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';

type Exporter = { export(items: never[], done: (r: { code: number; error?: Error }) => void): void };
const send = (e: Exporter, items: unknown[]) =>
  new Promise<void>((resolve, reject) =>
    e.export(items as never[], (r) => (r.code === 0 ? resolve() : reject(r.error ?? new Error('export failed')))),
  );

let open: Harness[] = [];
afterEach(async () => {
  for (const h of open) await h.close().catch(() => undefined);
  open = [];
});

async function start(databaseUrl?: string): Promise<Harness> {
  const h = await startToolwatch(databaseUrl ? { config: { database_url: databaseUrl } } : {});
  open.push(h);
  return h;
}

const post = (h: Harness, body: object) =>
  fetch(`${h.url}/v1/traces`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });

const kv = (key: string, stringValue: string) => ({ key, value: { stringValue } });
const ns = () => String(Date.now() * 1e6);

describe('waiting calls across a restart', () => {
  it('log records before the restart, their span after: counted once, with the span model', async () => {
    const a = await start();
    const s = scenario('events-content', 'restart-logs', '7'.repeat(32), '8'.repeat(16), Date.now() - 500);
    await send(new OTLPLogExporter({ url: `${a.url}/v1/logs` }) as unknown as Exporter, s.logs);
    expect(metricValue(await a.metrics(), 'toolwatch_tool_calls_total', { service: 'restart-logs' })).toBe(0);
    const db = a.services.config.database.kind === 'sqlite' ? a.services.config.database.path : '';
    await a.stop();

    const b = await start(db);
    await send(new OTLPTraceExporter({ url: `${b.url}/v1/traces` }) as unknown as Exporter, s.spans);
    const text = await b.metrics();
    for (const [key, n] of Object.entries(expectedCalls('events-content'))) {
      const [tool, outcome] = key.split('|') as [string, string];
      expect(
        metricValue(text, 'toolwatch_tool_calls_total', { service: 'restart-logs', tool, outcome, model: MODEL }),
      ).toBe(n);
    }
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service: 'restart-logs' })).toBe(3);
  });

  it('a Strands proposal before the restart, its tool span with the schema after: checked against it', async () => {
    const a = await start();
    const trace = '9'.repeat(32);
    const resource = { attributes: [kv('service.name', 'restart-schema')] };
    const chat = {
      traceId: trace,
      spanId: 'a'.repeat(16),
      name: 'chat',
      startTimeUnixNano: ns(),
      endTimeUnixNano: ns(),
      attributes: [
        kv('gen_ai.operation.name', 'chat'),
        kv('gen_ai.system', 'strands-agents'),
        kv('gen_ai.request.model', 'm1'),
      ],
      events: [
        {
          name: 'gen_ai.choice',
          timeUnixNano: ns(),
          attributes: [
            kv(
              'message',
              JSON.stringify([{ toolUse: { toolUseId: 'tu1', name: 'get_weather', input: { city: 42 } } }]),
            ),
          ],
        },
      ],
    };
    expect((await post(a, { resourceSpans: [{ resource, scopeSpans: [{ spans: [chat] }] }] })).status).toBe(200);
    expect(metricValue(await a.metrics(), 'toolwatch_tool_calls_total', { service: 'restart-schema' })).toBe(0);
    const db = a.services.config.database.kind === 'sqlite' ? a.services.config.database.path : '';
    await a.stop();

    const b = await start(db);
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const tool = {
      traceId: trace,
      spanId: 'b'.repeat(16),
      name: 'execute_tool get_weather',
      startTimeUnixNano: ns(),
      endTimeUnixNano: ns(),
      attributes: [
        kv('gen_ai.operation.name', 'execute_tool'),
        kv('gen_ai.system', 'strands-agents'),
        kv('gen_ai.tool.name', 'get_weather'),
        kv('gen_ai.tool.call.id', 'tu1'),
        kv('gen_ai.tool.json_schema', JSON.stringify(schema)),
      ],
    };
    expect((await post(b, { resourceSpans: [{ resource, scopeSpans: [{ spans: [tool] }] }] })).status).toBe(200);
    const text = await b.metrics();
    expect(
      metricValue(text, 'toolwatch_tool_calls_total', {
        service: 'restart-schema',
        outcome: 'SchemaMismatch',
        model: 'm1',
      }),
    ).toBe(1);
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service: 'restart-schema' })).toBe(1);
  });
});
