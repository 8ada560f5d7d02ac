/** The JSON API and /metrics over app.inject, fed through POST /v1/traces. */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { chatResourceSpans } from '../helpers/otlp-json.js';

const defs = JSON.stringify([
  {
    type: 'function',
    name: 'lookup',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
]);
const NOW = Date.now();

function chatSpan(i: number, service: string, args: string, name = 'lookup') {
  return chatResourceSpans({
    service,
    traceId: (i + 1).toString(16).padStart(32, '0'),
    spanId: (i + 1).toString(16).padStart(16, '0'),
    definitions: defs,
    call: { id: `c${i}`, name, arguments: args },
    endMs: NOW,
  });
}

describe('API', () => {
  let tw: Harness;
  beforeAll(async () => {
    tw = await startToolwatch({ listen: false, config: { store: { failures_per_tool_per_minute: 5 } } });
    const resourceSpans = [];
    for (let i = 0; i < 8; i++) resourceSpans.push(chatSpan(i, 'svc-a', `{"id":${i}}`)); // SchemaMismatch ×8
    for (let i = 8; i < 10; i++) resourceSpans.push(chatSpan(i, 'svc-a', '{"id":"ok"}')); // valid ×2
    resourceSpans.push(chatSpan(10, 'svc-b', 'not json'));
    resourceSpans.push(chatSpan(11, 'svc-b', '{}', 'invented'));
    const res = await tw.app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ resourceSpans }),
    });
    expect(res.statusCode).toBe(200);
  });
  afterAll(async () => {
    await tw.close();
  });

  it('GET /api/failures: newest first, capped per tool per minute, filters and cursor pages', async () => {
    const all = (await tw.app.inject('/api/failures')).json() as {
      items: { id: number; service: string; outcome: string; name: string; tool: string; errors: unknown[] }[];
      nextCursor: string | null;
    };
    // 8 mismatches for svc-a/lookup but only 5 records kept; svc-b has 2.
    expect(all.items.filter((f) => f.service === 'svc-a')).toHaveLength(5);
    expect(
      all.items
        .filter((f) => f.service === 'svc-b')
        .map((f) => f.outcome)
        .sort(),
    ).toEqual(['InvalidJson', 'UnknownName']);
    expect(all.items.map((f) => f.id)).toEqual([...all.items.map((f) => f.id)].sort((a, b) => b - a));
    expect(all.nextCursor).toBeNull();

    const byName = (await tw.app.inject('/api/failures?tool=invented')).json() as { items: { tool: string }[] };
    expect(byName.items).toEqual([expect.objectContaining({ tool: '_unknown', name: 'invented' })]);
    const byOutcome = (await tw.app.inject('/api/failures?outcome=InvalidJson&service=svc-b')).json() as {
      items: unknown[];
    };
    expect(byOutcome.items).toHaveLength(1);

    const p1 = (await tw.app.inject('/api/failures?limit=3')).json() as { items: { id: number }[]; nextCursor: string };
    expect(p1.items).toHaveLength(3);
    const p2 = (await tw.app.inject(`/api/failures?limit=3&cursor=${p1.nextCursor}`)).json() as {
      items: { id: number }[];
      nextCursor: string;
    };
    const p3 = (await tw.app.inject(`/api/failures?limit=3&cursor=${p2.nextCursor}`)).json() as {
      items: { id: number }[];
      nextCursor: string | null;
    };
    const ids = [...p1.items, ...p2.items, ...p3.items].map((f) => f.id);
    expect(new Set(ids).size).toBe(7);
    expect(p3.nextCursor).toBeNull();

    expect((await tw.app.inject('/api/failures?since=15m')).json().items).toHaveLength(7);
    expect(
      (await tw.app.inject(`/api/failures?since=${new Date(NOW + 60_000).toISOString()}`)).json().items,
    ).toHaveLength(0);
  });

  it('rejects bad query parameters with 400', async () => {
    for (const q of ['limit=0', 'limit=5000', 'outcome=valid', 'cursor=abc', 'since=yesterday', 'bogus=1']) {
      const res = await tw.app.inject(`/api/failures?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().message, q).toEqual(expect.any(String));
    }
    expect((await tw.app.inject('/api/stats?window=forever')).statusCode).toBe(400);
  });

  it('GET /api/stats: counts by outcome and the structural error rate per service and tool', async () => {
    const body = (await tw.app.inject('/api/stats?window=1h')).json() as {
      tools: {
        service: string;
        tool: string;
        counts: Record<string, number>;
        total: number;
        checked: number;
        errorRate: number | null;
      }[];
    };
    const a = body.tools.find((t) => t.service === 'svc-a' && t.tool === 'lookup')!;
    expect(a.counts).toEqual({ valid: 2, InvalidJson: 0, UnknownName: 0, SchemaMismatch: 8, unvalidated: 0 });
    expect(a.errorRate).toBeCloseTo(0.8);
    const unknown = body.tools.find((t) => t.service === 'svc-b' && t.tool === '_unknown')!;
    expect(unknown.counts.UnknownName).toBe(1);
  });

  it('/healthz and /readyz', async () => {
    expect((await tw.app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    expect((await tw.app.inject('/readyz')).json()).toEqual({ status: 'ready', store: 'sqlite' });
  });

  it('/metrics passes promtool check metrics', async () => {
    const res = await tw.app.inject('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toContain(
      'toolwatch_tool_calls_total{service="svc-a",model="model-a",tool="lookup",outcome="SchemaMismatch",source="otlp"} 8',
    );
    expect(res.body).toContain('toolwatch_failure_records_dropped_total 3');
    // promtool exits non-zero on format errors; lint warnings go to its output.
    const out = execFileSync('promtool', ['check', 'metrics'], { input: res.body, encoding: 'utf8' });
    expect(out).not.toMatch(/error/i);
  });
});
