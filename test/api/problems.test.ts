/**
 * The problems API on the real app (a real listener, SQLite file, auth on): problems listed with
 * filters and in order, one problem's detail, status changes by an admin token only, and a token
 * restricted to a service that sees only that service's problems.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Span } from '../../src/model.js';
import { bearer, tokenConfig, type TestToken } from '../auth/tokens.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { makeSpan } from '../helpers/spans.js';

let n = 0;
function call(service: string, args: string, name = 'refund'): Span {
  n++;
  const now = Date.now();
  return makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4.1',
      'gen_ai.tool.definitions': JSON.stringify([
        { type: 'function', name: 'refund', parameters: { type: 'object', required: ['amount'] } },
      ]),
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'tool_call', id: `c${n}`, name, arguments: args }] },
      ]),
    },
    {
      traceId: n.toString(16).padStart(32, '0'),
      spanId: n.toString(16).padStart(16, '0'),
      startTimeMs: now - 10,
      endTimeMs: now,
      service,
    },
  );
}

describe('problems API', () => {
  let dir: string;
  let tw: Harness;
  let tokens: Record<string, TestToken>;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-problems-'));
    const made = tokenConfig(dir, {
      admin: { scopes: ['admin', 'read'] },
      reader: { scopes: ['read'] },
      shop: { scopes: ['read'], services: ['shop'] },
    });
    tokens = made.tokens;
    tw = await startToolwatch({ config: { auth: made.auth } });
    await tw.services.pipeline.ingestSpans([
      call('shop', '{}'),
      call('shop', '{}'),
      call('shop', '{}'),
      call('shop', '{"amount": 1'),
      call('payroll', '{}'),
      call('payroll', '{}', 'Fire_Everyone'),
    ]);
  });

  afterAll(async () => {
    await tw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string, token: TestToken) => tw.app.inject({ method: 'GET', url, headers: bearer(token) });
  const post = (url: string, token: TestToken, body: object = {}) =>
    tw.app.inject({
      method: 'POST',
      url,
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: body,
    });

  it('lists every problem, new ones by occurrences', async () => {
    const res = await get('/api/problems', tokens.admin!);
    expect(res.statusCode).toBe(200);
    const { problems } = res.json() as {
      problems: { service: string; outcome: string; occurrences: number; new: boolean }[];
    };
    expect(problems[0]).toMatchObject({ service: 'shop', outcome: 'SchemaMismatch', occurrences: 3 });
    expect(problems.map((p) => `${p.service} ${p.outcome} ${p.occurrences}`).sort()).toEqual([
      'payroll SchemaMismatch 1',
      'payroll UnknownName 1',
      'shop InvalidJson 1',
      'shop SchemaMismatch 3',
    ]);
    expect(problems).toHaveLength(4);
    expect(problems.every((p) => p.new)).toBe(true);
    expect(problems.reduce((s, p) => s + p.occurrences, 0)).toBe(6);
  });

  it('filters by service, outcome and model', async () => {
    const by = async (q: string) =>
      ((await get(`/api/problems?${q}`, tokens.admin!)).json() as { problems: { id: string }[] }).problems.length;
    expect(await by('service=shop')).toBe(2);
    expect(await by('outcome=InvalidJson')).toBe(1);
    expect(await by('model=gpt-4.1')).toBe(4);
    expect(await by('model=other')).toBe(0);
    expect((await get('/api/problems?since=yesterday', tokens.admin!)).statusCode).toBe(400);
  });

  it('one problem: its hours, models and examples', async () => {
    const list = (await get('/api/problems?service=shop&outcome=InvalidJson', tokens.admin!)).json() as {
      problems: { id: string; parts: string[] }[];
    };
    const id = list.problems[0]!.id;
    expect(list.problems[0]!.parts).toEqual(['truncated']);
    const res = await get(`/api/problems/${id}`, tokens.admin!);
    expect(res.statusCode).toBe(200);
    const p = res.json() as {
      models: { model: string; count: number }[];
      examples: { slot: string; arguments: string }[];
    };
    expect(p.models).toEqual([{ model: 'gpt-4.1', count: 1 }]);
    expect(p.examples.map((e) => e.slot).sort()).toEqual(['first', 'latest', 'model:gpt-4.1']);
    expect(p.examples[0]!.arguments).toBe('{"amount": 1');
    expect((await get('/api/problems/0123456789abcdef', tokens.admin!)).statusCode).toBe(404);
  });

  it('resolve, mute and reopen need admin', async () => {
    const { problems } = (await get('/api/problems?service=payroll&outcome=UnknownName', tokens.admin!)).json() as {
      problems: { id: string }[];
    };
    const id = problems[0]!.id;
    expect((await post(`/api/problems/${id}/resolve`, tokens.reader!)).statusCode).toBe(403);
    const resolved = await post(`/api/problems/${id}/resolve`, tokens.admin!);
    expect(resolved.statusCode).toBe(200);
    expect(resolved.json()).toMatchObject({ id, status: 'resolved' });
    const muted = await post(`/api/problems/${id}/mute`, tokens.admin!, { until: '1h' });
    expect(muted.json()).toMatchObject({ status: 'muted' });
    const until = Date.parse((muted.json() as { mutedUntil: string }).mutedUntil);
    expect(until).toBeGreaterThan(Date.now() + 59 * 60_000);
    expect((await post(`/api/problems/${id}/reopen`, tokens.admin!)).json()).toMatchObject({ status: 'open' });
    const statuses = (await get('/api/problems?status=open&service=payroll', tokens.admin!)).json() as {
      problems: unknown[];
    };
    expect(statuses.problems).toHaveLength(2);
  });

  it('a token restricted to shop sees only shop problems', async () => {
    const { problems } = (await get('/api/problems', tokens.shop!)).json() as {
      problems: { id: string; service: string }[];
    };
    expect(new Set(problems.map((p) => p.service))).toEqual(new Set(['shop']));
    const all = (await get('/api/problems?service=payroll', tokens.admin!)).json() as { problems: { id: string }[] };
    const foreign = all.problems[0]!.id;
    expect((await get(`/api/problems/${foreign}`, tokens.shop!)).statusCode).toBe(404);
    // Changing a status needs admin, and admin tokens are never service-restricted (auth config).
    expect((await post(`/api/problems/${problems[0]!.id}/resolve`, tokens.shop!)).statusCode).toBe(403);
  });
});
