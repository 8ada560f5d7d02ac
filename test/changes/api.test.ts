/**
 * GET /api/changes and GET /api/tools/:service/:tool on the real app, fed through POST /v1/traces:
 * a definition change shows as an event and as two versions with the readable diff; a
 * service-restricted token sees only its services (another's tool is a 404, as a missing one is).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { chatResourceSpans } from '../helpers/otlp-json.js';
import { bearer, tokenConfig, type TestToken } from '../auth/tokens.js';

const defs = (required: string[], description = 'Refund an order.') =>
  JSON.stringify([
    {
      type: 'function',
      function: {
        name: 'refund_order',
        description,
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
          required,
        },
      },
    },
  ]);

let n = 0;
function chat(service: string, definitions: string, endMs: number, model = 'model-a') {
  n++;
  return chatResourceSpans({
    service,
    traceId: n.toString(16).padStart(32, 'c'),
    spanId: n.toString(16).padStart(16, 'd'),
    definitions,
    endMs,
    model,
    call: { id: `c${n}`, name: 'refund_order', arguments: '{"order_id": "o1"}' },
  });
}

describe('changes endpoints', () => {
  let dir: string;
  let tw: Harness;
  let t: Record<string, TestToken>;
  const post = (resourceSpans: unknown[]) =>
    tw.app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { 'content-type': 'application/json', ...bearer(t.ops!) },
      payload: JSON.stringify({ resourceSpans }),
    });
  const get = (token: TestToken, url: string) => tw.app.inject({ url, headers: bearer(token) });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-changes-'));
    const made = tokenConfig(dir, {
      shopTeam: { scopes: ['read'], services: ['shop'] },
      ops: { scopes: ['ingest', 'read'] },
    });
    t = made.tokens;
    tw = await startToolwatch({ config: { auth: made.auth } });
    const t0 = Date.now() - 60_000;
    for (const service of ['shop', 'bank']) {
      expect((await post([chat(service, defs(['order_id']), t0)])).statusCode).toBe(200);
      expect((await post([chat(service, defs(['order_id']), t0 + 1_000)])).statusCode).toBe(200);
      expect((await post([chat(service, defs(['order_id', 'amount']), t0 + 10_000, 'model-b')])).statusCode).toBe(200);
    }
    // a tool added and one removed
    const set = (names: string[]) => JSON.stringify(names.map((name) => ({ type: 'function', name })));
    expect((await post([chat('sets', set(['refund_order', 'lookup']), t0)])).statusCode).toBe(200);
    expect((await post([chat('sets', set(['refund_order', 'cancel_order']), t0 + 5_000)])).statusCode).toBe(200);
  });
  afterAll(async () => {
    await tw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the events, filtered by kind and service', async () => {
    const all = (await get(t.ops!, '/api/changes'))
      .json()
      .changes.filter((e: { service: string }) => e.service !== 'sets');
    expect(all.map((e: { service: string; kind: string }) => `${e.service} ${e.kind}`).sort()).toEqual([
      'bank model',
      'bank tool_definition',
      'shop model',
      'shop tool_definition',
    ]);
    const shopDefs = (await get(t.ops!, '/api/changes?service=shop&kind=tool_definition')).json().changes;
    expect(shopDefs).toHaveLength(1);
    expect(shopDefs[0]).toMatchObject({ service: 'shop', kind: 'tool_definition', tool: 'refund_order' });
    expect(shopDefs[0].time).toMatch(/^\d{4}-/);
    expect((await get(t.ops!, '/api/changes?since=1s')).json().changes).toEqual([]);
    expect((await get(t.ops!, '/api/changes?since=yesterday')).statusCode).toBe(400);
    expect((await get(t.ops!, '/api/changes?kind=weather')).statusCode).toBe(400);
  });

  it('a tool_set event names the tools added and removed', async () => {
    const [e] = (await get(t.ops!, '/api/changes?service=sets&kind=tool_set')).json().changes;
    expect(e).toMatchObject({ kind: 'tool_set', added: ['cancel_order'], removed: ['lookup'] });
  });

  it("shows a tool's versions with calls and the readable diff", async () => {
    const res = await get(t.ops!, '/api/tools/shop/refund_order');
    expect(res.statusCode).toBe(200);
    const { versions } = res.json();
    expect(versions.map((v: { calls: number }) => v.calls)).toEqual([2, 1]);
    expect(versions[0].changes).toBeNull();
    expect(versions[1].changes).toEqual([{ kind: 'required_added', path: 'amount', text: '`amount` became required' }]);
    expect(versions[1].definition.parameters.required).toEqual(['amount', 'order_id']);
    expect((await get(t.ops!, '/api/tools/shop/nope')).statusCode).toBe(404);
  });

  it('a service-restricted token sees only its services', async () => {
    const seen = (await get(t.shopTeam!, '/api/changes')).json().changes;
    expect(new Set(seen.map((e: { service: string }) => e.service))).toEqual(new Set(['shop']));
    expect((await get(t.shopTeam!, '/api/changes?service=bank')).json().changes).toEqual([]);
    expect((await get(t.shopTeam!, '/api/tools/bank/refund_order')).statusCode).toBe(404);
    expect((await get(t.shopTeam!, '/api/tools/shop/refund_order')).statusCode).toBe(200);
  });
});

describe('per-version and per-provider counts are the counted calls', () => {
  let tw: Harness;
  beforeAll(async () => {
    tw = await startToolwatch();
  });
  afterAll(async () => {
    await tw?.close();
  });

  it('a resent batch adds nothing; the counts agree with /api/stats', async () => {
    const t0 = Date.now() - 30_000;
    const batch = [chat('resend', defs(['order_id']), t0), chat('resend', defs(['order_id', 'amount']), t0 + 1_000)];
    const post = () =>
      tw.app.inject({
        method: 'POST',
        url: '/v1/traces',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ resourceSpans: batch }),
      });
    for (let i = 0; i < 3; i++) expect((await post()).statusCode).toBe(200);
    const { versions } = (await tw.app.inject({ url: '/api/tools/resend/refund_order' })).json();
    // The second request made `amount` required and the agent left it out: SchemaMismatch on v2.
    expect(versions.map((v: { rates: { total: number; failed: number } }) => [v.rates.total, v.rates.failed])).toEqual([
      [1, 0],
      [1, 1],
    ]);
    const stats = (await tw.app.inject({ url: '/api/stats?service=resend&window=1h' })).json();
    expect(stats.tools).toMatchObject([{ tool: 'refund_order', total: 2, counts: { SchemaMismatch: 1 } }]);
  });
});
