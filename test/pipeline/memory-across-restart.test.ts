/**
 * The one-call-one-count memory across a restart (issue 8, "exactly once across a crash"): what a
 * batch took — its tool-bearing spans and the calls it counted — is stored with the batch, in the
 * same transaction, and loaded when a process starts. So a batch resent after the process that
 * recorded it died (recorded, never answered) is a duplicate, and a tool span whose proposal the
 * previous process counted pairs with it instead of being counted a second time.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';

const TRACE = '5b8efff798038103d269b633813fc60c';
const TRACE2 = '6b8efff798038103d269b633813fc60c';

function otlp(service: string, spans: object[]): string {
  return JSON.stringify({
    resourceSpans: [
      { resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] }, scopeSpans: [{ spans }] },
    ],
  });
}

const now = () => String(Date.now() * 1e6);
const attr = (key: string, stringValue: string) => ({ key, value: { stringValue } });

function chat(traceId: string, spanId: string, calls: { id?: string; name: string }[]): object {
  const parts = calls.map((c) => ({ type: 'tool_call', ...(c.id ? { id: c.id } : {}), name: c.name, arguments: '{}' }));
  return {
    traceId,
    spanId,
    name: 'chat',
    startTimeUnixNano: now(),
    endTimeUnixNano: now(),
    attributes: [
      attr('gen_ai.operation.name', 'chat'),
      attr('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts }])),
    ],
  };
}

function tool(traceId: string, spanId: string, name: string, id?: string): object {
  return {
    traceId,
    spanId,
    name: `execute_tool ${name}`,
    startTimeUnixNano: now(),
    endTimeUnixNano: now(),
    attributes: [
      attr('gen_ai.operation.name', 'execute_tool'),
      attr('gen_ai.tool.name', name),
      ...(id ? [attr('gen_ai.tool.call.id', id)] : []),
      attr('gen_ai.tool.call.arguments', '{}'),
    ],
  };
}

let open: Harness[] = [];
afterEach(async () => {
  for (const h of open) await h.close().catch(() => undefined);
  open = [];
});

async function start(databaseUrl: string): Promise<Harness> {
  const h = await startToolwatch({
    config: { ...(databaseUrl ? { database_url: databaseUrl } : {}), dedupe: { execution_grace: '100ms' } },
  });
  open.push(h);
  return h;
}

async function post(h: Harness, body: string): Promise<void> {
  const res = await fetch(`${h.url}/v1/traces`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
  });
  expect(res.status).toBe(200);
}

async function stored(h: Harness): Promise<{ calls: Record<string, number>; executions: number }> {
  const calls: Record<string, number> = {};
  for (const r of await h.services.store.callCounts({ sinceMs: 0 })) calls[r.tool] = (calls[r.tool] ?? 0) + r.count;
  const [row] = await h.services.store.sql.all<{ n: unknown }>('SELECT SUM(count) AS n FROM execution_minutes');
  return { calls, executions: Number(row?.n ?? 0) };
}

const engines = [
  { name: 'SQLite', skip: false },
  { name: 'PostgreSQL', skip: pgServer().skip },
];

describe.each(engines)('the dedupe memory across a restart on $name', ({ name, skip }) => {
  const made: string[] = [];
  afterAll(async () => {
    for (const u of made) await dropDatabase(u);
  });
  const db = async (first: Harness | undefined) => {
    if (name === 'PostgreSQL') {
      const u = await freshDatabase();
      made.push(u);
      return u;
    }
    return first?.services.config.database.kind === 'sqlite' ? first.services.config.database.path : '';
  };

  it.skipIf(skip)('a batch recorded, then resent to the restarted process, is counted once', async () => {
    const url = await db(undefined);
    const a = await start(url);
    const body = otlp('resend', [
      chat(TRACE, 'a000000000000001', [
        { id: 'c1', name: 'book' },
        { id: 'c2', name: 'pay' },
      ]),
      tool(TRACE, 'a000000000000002', 'book', 'c1'),
    ]);
    await post(a, body);
    await a.stop();

    const b = await start(url || (await db(a)));
    await post(b, body); // the client never saw the first 200
    const text = await b.metrics();
    expect(metricValue(text, 'toolwatch_duplicate_spans_total')).toBe(2);
    expect(await stored(b)).toEqual({ calls: { book: 1, pay: 1 }, executions: 1 });
  });

  it.skipIf(skip)('a tool span after the restart pairs with the proposal the previous process counted', async () => {
    const url = await db(undefined);
    const a = await start(url);
    await post(a, otlp('pairs', [chat(TRACE2, 'b000000000000001', [{ id: 'k1', name: 'search' }, { name: 'fetch' }])]));
    await a.stop();

    const b = await start(url || (await db(a)));
    // By id, and an id-less one by name.
    await post(
      b,
      otlp('pairs', [tool(TRACE2, 'b000000000000002', 'search', 'k1'), tool(TRACE2, 'b000000000000003', 'fetch')]),
    );
    await new Promise((r) => setTimeout(r, 400)); // past the grace period: nothing waits
    // Past the status grace only: the executions do not wait for their calls (counted before the restart,
    // their outcome kept in the journal), so they are counted with that outcome, not `unknown` a minute later.
    await b.services.pipeline.settle(Date.now() + 2_500);
    expect(await stored(b)).toEqual({ calls: { search: 1, fetch: 1 }, executions: 2 });
    const outcomes = await b.services.store.sql.all<{ call_outcome: string }>(
      'SELECT DISTINCT call_outcome FROM execution_minutes',
    );
    expect(outcomes.map((r) => r.call_outcome)).toEqual(['unvalidated']);
  });
});
