/**
 * A scripted production day through the real OTel exporter (OTLP/HTTP protobuf): one chat span every
 * 20 s for 24 h per service, each proposing one call. Three changes: a definition change of
 * refund_order (T1: `reason` becomes required, and a third of the agent's refunds leave it out), a
 * provider switch (T2: a quarter of lookup_order's arguments arrive cut short — InvalidJson) and a
 * system prompt change that changes nothing (T3). Two orders: T3 before T1, and T3 an hour after T1.
 * Attribution must name T1 for the SchemaMismatch problem and T2 for the InvalidJson problem, with
 * the before/after counts the script produced in exactly those windows, and T3 for nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient } from '../helpers/otel.js';
import { definitionDrift } from '../../src/changes/alert-kind.js';
import { valueCounts } from '../../src/changes/store.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const minuteOf = (ms: number) => Math.floor(ms / MIN) * MIN;

const defs = (required: string[]) =>
  JSON.stringify([
    {
      type: 'function',
      function: {
        name: 'refund_order',
        description: 'Refund an order.',
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string' }, reason: { type: 'string' } },
          required,
        },
      },
    },
    {
      type: 'function',
      function: {
        name: 'lookup_order',
        description: 'Look an order up.',
        parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      },
    },
  ]);

interface Planned {
  startMs: number;
  tool: 'refund_order' | 'lookup_order';
  args: string;
  outcome: 'valid' | 'SchemaMismatch' | 'InvalidJson';
  definitions: string;
  provider: Record<string, string>;
  instructions: string;
}

/** The day as the agent lives it: T1, T2, T3 are offsets from the day's start. */
function plan(dayStart: number, s: Scenario): Planned[] {
  const { t1, t2, t3 } = s;
  const out: Planned[] = [];
  let refunds = 0;
  let lookups = 0;
  for (let t = dayStart, i = 0; t < dayStart + 24 * HOUR; t += 20_000, i++) {
    const tool = i % 2 === 0 ? 'refund_order' : 'lookup_order';
    const newDefs = t >= dayStart + t1;
    const newProvider = t >= dayStart + t2;
    let args = '{"order_id": "o1", "reason": "damaged"}';
    let outcome: Planned['outcome'] = 'valid';
    if (tool === 'refund_order') {
      // A third of the refunds never gave a reason: harmless until it became required.
      if (refunds++ % 3 === 0) {
        args = '{"order_id": "o1"}';
        if (newDefs) outcome = 'SchemaMismatch';
      }
    } else {
      args = '{"order_id": "o1"}';
      if (newProvider && lookups % 4 === 0) {
        args = '{"order_id": "o1';
        outcome = 'InvalidJson';
      }
      lookups++;
    }
    out.push({
      startMs: t,
      tool,
      args,
      outcome,
      definitions: newDefs ? defs(['order_id', 'reason']) : defs(['order_id']),
      provider: newProvider ? s.providers[1] : s.providers[0],
      instructions: t >= dayStart + t3 ? 'You are a careful shop assistant.' : 'You are a shop assistant.',
    });
  }
  return out;
}

/** The script's own count of a tool's checked calls and failures of an outcome in [since, until) minutes. */
function expected(p: Planned[], tool: string, outcome: string, since: number, until: number) {
  const inWindow = p.filter((x) => x.tool === tool && minuteOf(x.startMs) >= since && minuteOf(x.startMs) < until);
  return { calls: inWindow.length, failures: inWindow.filter((x) => x.outcome === outcome).length };
}

interface Scenario {
  service: string;
  name: string;
  t1: number;
  t2: number;
  t3: number;
  /** The provider attributes before and after T2, and the provider values toolwatch reads from them. */
  providers: [Record<string, string>, Record<string, string>];
  read: [string, string];
}

const SCENARIOS: Scenario[] = [
  {
    service: 'shop-a',
    name: 'T3 before T1',
    t3: 6 * HOUR,
    t1: 10 * HOUR,
    t2: 14 * HOUR,
    providers: [{ 'gen_ai.provider.name': 'openai' }, { 'gen_ai.provider.name': 'anthropic' }],
    read: ['openai', 'anthropic'],
  },
  {
    // Through a router: the same provider name, another host (OpenAI's SDK pointed at OpenRouter).
    service: 'shop-b',
    name: 'T3 an hour after T1, the switch seen in server.address',
    t1: 6 * HOUR,
    t3: 7 * HOUR,
    t2: 14 * HOUR,
    providers: [
      { 'gen_ai.provider.name': 'openai', 'server.address': 'api.openai.com' },
      { 'gen_ai.provider.name': 'openai', 'server.address': 'openrouter.ai' },
    ],
    read: ['openai@api.openai.com', 'openai@openrouter.ai'],
  },
];

describe('a production day: the change named as the cause, with its counts and p', () => {
  let tw: Harness;
  const dayStart = minuteOf(Date.now()) - 24 * HOUR;
  const plans = new Map<string, Planned[]>();

  beforeAll(async () => {
    tw = await startToolwatch();
    for (const s of SCENARIOS) {
      const p = plan(dayStart, s);
      plans.set(s.service, p);
      const client = otelClient(tw.url, { service: s.service, batchSize: 200 });
      p.forEach((x, i) => {
        const span = client.tracer.startSpan('chat', { startTime: x.startMs });
        span.setAttributes({
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o',
          ...x.provider,
          'gen_ai.system_instructions': x.instructions,
          'gen_ai.tool.definitions': x.definitions,
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: [{ type: 'tool_call', id: `c${i}`, name: x.tool, arguments: x.args }] },
          ]),
        });
        span.end(x.startMs + 500);
      });
      await client.flush();
      await client.shutdown();
    }
    // Every call counted (none waits: each request offered its tools).
    for (const s of SCENARIOS) {
      const total = plans.get(s.service)!.length;
      let counted = 0;
      for (let i = 0; i < 100 && counted < total; i++) {
        const stats = (await tw.app.inject({ url: `/api/stats?window=2d&service=${s.service}` })).json();
        counted = stats.tools.reduce((n: number, t: { total: number }) => n + t.total, 0);
        if (counted < total) await new Promise((r) => setTimeout(r, 100));
      }
      expect(counted).toBe(total);
    }
  }, 120_000);
  afterAll(async () => {
    await tw?.close();
  });

  const problemOf = async (service: string, outcome: string, tool: string) => {
    const list = (await tw.app.inject({ url: `/api/problems?since=2d&service=${service}` })).json().problems;
    const p = list.find((x: { outcome: string; tool: string }) => x.outcome === outcome && x.tool === tool);
    expect(p, `${outcome} on ${tool} in ${service}`).toBeDefined();
    const res = await tw.app.inject({ url: `/api/problems/${p.id}?service=${service}` });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  describe.each(SCENARIOS)('$name', (s) => {
    const window = (w: { since: string; until: string }) => [Date.parse(w.since), Date.parse(w.until)] as const;

    it('names T1 for the SchemaMismatch problem, with the exact counts and p', async () => {
      const p = await problemOf(s.service, 'SchemaMismatch', 'refund_order');
      const planned = plans.get(s.service)!;
      const t1 = planned.find((x) => x.startMs >= dayStart + s.t1)!.startMs;
      const cause = p.likely_change;
      expect(cause).not.toBeNull();
      expect(cause.change).toMatchObject({ kind: 'tool_definition', tool: 'refund_order', timeMs: t1 });
      // Windows of one length, bounded by the next change (T3 in shop-b, T2 in shop-a), the change's minute left out.
      const [bSince, bUntil] = window(cause.before);
      const [aSince, aUntil] = window(cause.after);
      const next = Math.min(...[s.t2, s.t3].filter((t) => t > s.t1)) + dayStart;
      const prev = Math.max(dayStart - 6 * HOUR, ...[s.t3].filter((t) => t < s.t1).map((t) => t + dayStart));
      const length = Math.min(6 * HOUR, minuteOf(t1) - minuteOf(prev), minuteOf(next) - minuteOf(t1) - MIN);
      expect([bUntil, aSince, aUntil - aSince, bUntil - bSince]).toEqual([
        minuteOf(t1),
        minuteOf(t1) + MIN,
        length,
        length,
      ]);
      const before = expected(planned, 'refund_order', 'SchemaMismatch', bSince, bUntil);
      const after = expected(planned, 'refund_order', 'SchemaMismatch', aSince, aUntil);
      expect(before.failures).toBe(0);
      expect(after.failures).toBeGreaterThan(0);
      expect({ calls: cause.before.calls, failures: cause.before.failures }).toEqual(before);
      expect({ calls: cause.after.calls, failures: cause.after.failures }).toEqual(after);
      expect(cause.test).toBe('fisher');
      expect(cause.p).toBeLessThan(1e-6);
      expect(cause.pText).toBe('p < 1e-6');
      expect(cause.shareOnNew).toBe(1);
      expect(cause.text).toContain("refund_order's definition changed");
      expect(cause.text).toContain(`(n ${before.calls} / ${after.calls}, p < 1e-6)`);
      // T3, when it came before, was judged and not named.
      const names = p.attribution.candidates.map((c: { change: { kind: string } }) => c.change.kind);
      expect(names).not.toContain('provider');
      for (const c of p.attribution.candidates.filter((x: { change: { kind: string } }) => x.change.kind === 'prompt'))
        expect(c.significant).toBe(false);
    });

    it('names T2 for the InvalidJson problem, with the exact counts', async () => {
      const p = await problemOf(s.service, 'InvalidJson', 'lookup_order');
      const planned = plans.get(s.service)!;
      const t2 = planned.find((x) => x.startMs >= dayStart + s.t2)!.startMs;
      const cause = p.likely_change;
      expect(cause.change).toMatchObject({ kind: 'provider', from: s.read[0], to: s.read[1], timeMs: t2 });
      const [bSince, bUntil] = window(cause.before);
      const [aSince, aUntil] = window(cause.after);
      expect({ calls: cause.before.calls, failures: cause.before.failures }).toEqual(
        expected(planned, 'lookup_order', 'InvalidJson', bSince, bUntil),
      );
      expect({ calls: cause.after.calls, failures: cause.after.failures }).toEqual(
        expected(planned, 'lookup_order', 'InvalidJson', aSince, aUntil),
      );
      expect(cause.before.failures).toBe(0);
      expect(cause.p).toBeLessThan(1e-6);
      expect(cause.shareOnNew).toBe(1);
      // The definition change of another tool is no candidate; the prompt change, if judged, is not named.
      const kinds = p.attribution.candidates.map((c: { change: { kind: string } }) => c.change.kind);
      expect(kinds).not.toContain('tool_definition');
    });

    it('T3 names nothing: its impact is not significant, and no problem names it', async () => {
      const changes = (await tw.app.inject({ url: `/api/changes?service=${s.service}` })).json().changes;
      expect(changes.map((c: { kind: string }) => c.kind).sort()).toEqual(['prompt', 'provider', 'tool_definition']);
      const byKind = Object.fromEntries(changes.map((c: { kind: string }) => [c.kind, c]));
      expect(byKind.prompt.impact.significant).toBe(false);
      expect(byKind.tool_definition.impact.significant).toBe(true);
      expect(byKind.provider.impact.significant).toBe(true);
      const list = (await tw.app.inject({ url: `/api/problems?since=2d&service=${s.service}` })).json().problems;
      for (const q of list) {
        const one = (await tw.app.inject({ url: `/api/problems/${q.id}?service=${s.service}` })).json();
        expect(one.likely_change?.change.kind).not.toBe('prompt');
      }
    });
  });

  it('per-version error rates and providers side by side', async () => {
    const planned = plans.get('shop-a')!;
    const tool = (await tw.app.inject({ url: '/api/tools/shop-a/refund_order' })).json();
    expect(tool.versions).toHaveLength(2);
    const [v1, v2] = tool.versions;
    const refunds = planned.filter((x) => x.tool === 'refund_order');
    const onV2 = refunds.filter((x) => x.startMs >= dayStart + SCENARIOS[0]!.t1);
    expect(v1.rates).toMatchObject({ checked: refunds.length - onV2.length, failed: 0, errorRate: 0 });
    const failedV2 = onV2.filter((x) => x.outcome === 'SchemaMismatch').length;
    expect(v2.rates).toMatchObject({ checked: onV2.length, failed: failedV2 });
    expect(v2.rates.errorRate).toBeCloseTo(failedV2 / onV2.length, 12);
    const stats = (await tw.app.inject({ url: '/api/stats?window=2d&by=provider&service=shop-a' })).json();
    expect(stats.by).toBe('provider');
    const anthropic = planned.filter((x) => x.provider['gen_ai.provider.name'] === 'anthropic');
    const rows = Object.fromEntries(
      stats.providers.map((r: { provider: string; rates: { total: number } }) => [r.provider, r]),
    );
    expect(rows.anthropic.rates.total).toBe(anthropic.length);
    expect(rows.anthropic.rates.counts.InvalidJson).toBe(anthropic.filter((x) => x.outcome === 'InvalidJson').length);
    expect(rows.openai.rates.total).toBe(planned.length - anthropic.length);
  });
});

describe('drift by definition and the definition-change counter on the same day', () => {
  let tw: Harness;
  const dayStart = minuteOf(Date.now()) - 24 * HOUR;
  const s = SCENARIOS[0]!;
  let planned: Planned[];

  beforeAll(async () => {
    tw = await startToolwatch();
    planned = plan(dayStart, s);
    const client = otelClient(tw.url, { service: s.service, batchSize: 500 });
    planned.forEach((x, i) => {
      const span = client.tracer.startSpan('chat', { startTime: x.startMs });
      span.setAttributes({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        ...x.provider,
        'gen_ai.tool.definitions': x.definitions,
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'tool_call', id: `c${i}`, name: x.tool, arguments: x.args }] },
        ]),
      });
      span.end(x.startMs + 500);
    });
    await client.flush();
    await client.shutdown();
  }, 120_000);
  afterAll(async () => {
    await tw?.close();
  });

  it('definition_drift fires for the new version an hour after T1, with the counts of both windows', async () => {
    const sql = tw.services.store.sql;
    const io = {
      callCounts: async () => [],
      definitions: {
        counts: (q: { sinceMs: number; untilMs: number }) => valueCounts(sql, { kind: 'tool_definition', ...q }),
      },
    };
    const now = dayStart + s.t1 + HOUR;
    const params = {
      window: '1h',
      baseline: '24h',
      p_value: 0.001,
      min_ratio: 2,
      min_calls: 50,
      min_baseline_calls: 200,
      by: ['definition' as const],
    };
    const obs = definitionDrift.evaluate(params, await definitionDrift.load!(params, io, now), now);
    const fired = obs.filter((o) => o.active);
    expect(fired.map((o) => o.labels.tool)).toEqual(['refund_order']);
    const v2 = (await tw.app.inject({ url: `/api/tools/${s.service}/refund_order` })).json().versions[1].version;
    expect(fired[0]!.labels).toEqual({ service: s.service, tool: 'refund_order', definition: v2 });
    // The script's own counts of the current window (whole minutes up to now's) on v2.
    const until = minuteOf(now) + MIN;
    const cur = planned.filter((x) => x.tool === 'refund_order' && x.startMs >= until - HOUR && x.startMs < until);
    expect(fired[0]!.details.checked).toBe(cur.length);
    expect(fired[0]!.details.failed).toBe(cur.filter((x) => x.outcome === 'SchemaMismatch').length);
    // lookup_order's single version has no other version to be compared with: never fires.
    expect(obs.find((o) => o.labels.tool === 'lookup_order')?.active).toBe(false);
  });

  it('toolwatch_tool_definition_changes_total counts the definition change once', async () => {
    const text = (await tw.app.inject({ url: '/metrics' })).body;
    expect(text).toContain(`toolwatch_tool_definition_changes_total{service="${s.service}"} 1`);
  });
});
