/**
 * Firing alerts named with their likely change, through the real app: spans of three services sent
 * with the real OTel exporter, one error_rate rule by service and tool, evaluated at scripted
 * instants, delivered to a Slack stand-in and a webhook receiver.
 * - shop-a: refund_order's definition changes at T1 (`reason` becomes required; a third of the
 *   refunds leave it out) — the alert names T1 with the script's before/after counts and p;
 * - shop-b: lookup_order starts failing at T1 with no change; its definition changes ten minutes
 *   after the alert began (and failures double with it) — that change is not named, then or in the
 *   repeat sent after it;
 * - shop-c: failures with no change at all — said plainly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient } from '../helpers/otel.js';
import { fakeSlack, type FakeSlack } from '../fakes/slack.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const minuteOf = (ms: number) => Math.floor(ms / MIN) * MIN;

const def = (name: string, required: string[], description: string) => ({
  type: 'function',
  function: {
    name,
    description,
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string' }, reason: { type: 'string' } },
      required,
    },
  },
});

interface Planned {
  service: string;
  startMs: number;
  tool: string;
  args: string;
  failed: boolean;
  definitions: string;
}

const base = minuteOf(Date.now()) - 3 * HOUR;
const T1 = base + 60 * MIN;
/** shop-b's definition change: after its alert began (at T1 + 5 min). */
const T_LATE = base + 70 * MIN;

/** One call every 5 s per service from base to base + 90 min. */
function plan(): Planned[] {
  const out: Planned[] = [];
  for (let t = base, i = 0; t < base + 90 * MIN; t += 5_000, i++) {
    // shop-a: harmless until `reason` became required at T1.
    const aNew = t >= T1;
    const aMisses = i % 3 === 0;
    out.push({
      service: 'shop-a',
      startMs: t,
      tool: 'refund_order',
      args: aMisses ? '{"order_id": "o1"}' : '{"order_id": "o1", "reason": "damaged"}',
      failed: aNew && aMisses,
      definitions: JSON.stringify([def('refund_order', aNew ? ['order_id', 'reason'] : ['order_id'], 'Refund.')]),
    });
    // shop-b: from T1 a third of the lookups miss order_id, two thirds once its description changed.
    const bMisses = t >= T_LATE ? i % 3 !== 0 : t >= T1 ? i % 3 === 0 : false;
    out.push({
      service: 'shop-b',
      startMs: t,
      tool: 'lookup_order',
      args: bMisses ? '{}' : '{"order_id": "o1"}',
      failed: bMisses,
      definitions: JSON.stringify([def('lookup_order', ['order_id'], t >= T_LATE ? 'Look up.' : 'Look an order up.')]),
    });
    // shop-c: the same rise, no change at all.
    const cMisses = t >= T1 && i % 3 === 0;
    out.push({
      service: 'shop-c',
      startMs: t,
      tool: 'lookup_order',
      args: cMisses ? '{}' : '{"order_id": "o1"}',
      failed: cMisses,
      definitions: JSON.stringify([def('lookup_order', ['order_id'], 'Look an order up.')]),
    });
  }
  return out;
}

/** The script's own calls and failures of a service in [since, until) minutes. */
function expected(p: Planned[], service: string, since: number, until: number) {
  const w = p.filter((x) => x.service === service && minuteOf(x.startMs) >= since && minuteOf(x.startMs) < until);
  return { calls: w.length, failures: w.filter((x) => x.failed).length };
}

interface AlertView {
  labels: Record<string, string>;
  state: string;
  activeSince: string;
  attribution: {
    began: string;
    window: string;
    text: string;
    likely_change: null | {
      change: { kind: string; tool?: string; timeMs: number };
      before: { since: string; until: string; calls: number; failures: number };
      after: { since: string; until: string; calls: number; failures: number };
      p: number;
      pText: string;
      shareOnNew: number | null;
      text: string;
    };
    candidates: { change: { kind: string; timeMs: number } }[];
  } | null;
}

describe('a firing alert names the change before it began', () => {
  let tw: Harness;
  let receiver: FakeSlack;
  const planned = plan();

  beforeAll(async () => {
    receiver = await fakeSlack();
    tw = await startToolwatch({
      config: {
        alerts: {
          // Evaluated by the test at the script's instants, not by the clock.
          interval: '24h',
          rules: [
            {
              name: 'tools-failing',
              kind: 'error_rate',
              window: '10m',
              threshold: 0.05,
              min_calls: 20,
              by: ['service', 'tool'],
              repeat_interval: '10m',
            },
          ],
          notifiers: [
            { name: 'oncall', kind: 'slack', url: `${receiver.url}/services/T/B/x`, allow_any_url: true },
            { name: 'hook', kind: 'webhook', url: `${receiver.url}/hook`, allow_private_addresses: true },
          ],
          delivery: { min_interval: '0s' },
        },
      },
    });
    for (const service of ['shop-a', 'shop-b', 'shop-c']) {
      const client = otelClient(tw.url, { service, batchSize: 200 });
      planned
        .filter((x) => x.service === service)
        .forEach((x, i) => {
          const span = client.tracer.startSpan('chat', { startTime: x.startMs });
          span.setAttributes({
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': 'gpt-4o',
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
    for (const service of ['shop-a', 'shop-b', 'shop-c']) {
      const total = planned.filter((x) => x.service === service).length;
      let counted = 0;
      for (let i = 0; i < 100 && counted < total; i++) {
        const stats = (await tw.app.inject({ url: `/api/stats?window=1d&service=${service}` })).json();
        counted = stats.tools.reduce((n: number, t: { total: number }) => n + t.total, 0);
        if (counted < total) await new Promise((r) => setTimeout(r, 100));
      }
      expect(counted).toBe(total);
    }
  }, 90_000);
  afterAll(async () => {
    await tw?.close();
    await receiver?.close();
  });

  const round = async (now: number) => {
    const before = receiver.received.length;
    const r = await tw.services.alerting.evaluate(now);
    expect(r?.errors).toEqual([]);
    for (let i = 0; i < 12; i++) await tw.services.alerting.deliver();
    return receiver.received.slice(before);
  };
  const alerts = async (): Promise<AlertView[]> => (await tw.app.inject({ url: '/api/alerts' })).json().alerts;
  const of = (list: AlertView[], service: string) => list.find((a) => a.labels.service === service)!;
  const slackText = (body: FakeSlack['received'][number]['body']) =>
    body.blocks.map((b) => b.text?.text ?? '').join('\n');

  it('before T1 nothing fires; at T1 + 5 min each service fires, and shop-a names T1 with its counts', async () => {
    expect(await round(T1 - 10 * MIN)).toEqual([]);
    const sent = await round(T1 + 5 * MIN);
    const list = await alerts();
    expect(list.map((a) => [a.labels.service, a.state]).sort()).toEqual([
      ['shop-a', 'firing'],
      ['shop-b', 'firing'],
      ['shop-c', 'firing'],
    ]);
    const a = of(list, 'shop-a');
    expect(a.attribution!.began).toBe(a.activeSince);
    const cause = a.attribution!.likely_change!;
    expect(cause).not.toBeNull();
    const t1 = planned.find((x) => x.service === 'shop-a' && x.startMs >= T1)!.startMs;
    expect(cause.change).toMatchObject({ kind: 'tool_definition', tool: 'refund_order', timeMs: t1 });
    // The after window stops at the evaluation's minute; the before window is as long.
    expect([Date.parse(cause.after.since), Date.parse(cause.after.until)]).toEqual([T1 + MIN, T1 + 6 * MIN]);
    expect([Date.parse(cause.before.since), Date.parse(cause.before.until)]).toEqual([T1 - 5 * MIN, T1]);
    expect({ calls: cause.before.calls, failures: cause.before.failures }).toEqual(
      expected(planned, 'shop-a', T1 - 5 * MIN, T1),
    );
    expect({ calls: cause.after.calls, failures: cause.after.failures }).toEqual(
      expected(planned, 'shop-a', T1 + MIN, T1 + 6 * MIN),
    );
    expect(cause.before.failures).toBe(0);
    expect(cause.after.failures).toBe(20);
    expect(cause.p).toBeLessThan(1e-5);
    expect(cause.shareOnNew).toBe(1);
    expect(a.attribution!.text).toBe(cause.text);
    expect(cause.text).toContain("refund_order's definition changed");

    // Slack got the sentence; the webhook the attribution itself and the annotation.
    const slack = sent.filter((m) => m.path.startsWith('/services/'));
    const hook = sent.filter((m) => m.path === '/hook');
    expect(slack).toHaveLength(3);
    expect(hook).toHaveLength(3);
    const slackA = slack.find((m) => m.body.text.includes('service=shop-a'))!;
    expect(slackText(slackA.body)).toContain(
      `*Likely change*\n${cause.text.replace(/</g, '&lt;').replace(/>/g, '&gt;')}`,
    );
    const hookA = hook.find((m) => JSON.stringify(m.body).includes('"shop-a"'))!.body as unknown as {
      alerts: { annotations: Record<string, string> }[];
      toolwatch: { attribution: AlertView['attribution'] };
    };
    expect(hookA.toolwatch.attribution!.likely_change!.change.timeMs).toBe(t1);
    expect(hookA.toolwatch.attribution!.likely_change!.before.calls).toBe(cause.before.calls);
    expect(hookA.alerts[0]!.annotations.attribution).toBe(cause.text);
  });

  it('no change found is said plainly, in /api/alerts, Slack and the webhook', async () => {
    const c = of(await alerts(), 'shop-c');
    expect(c.attribution).toMatchObject({
      likely_change: null,
      candidates: [],
      text: 'no change of this service in the 6 h before it began',
    });
    const slackC = receiver.received.find((m) => m.path.startsWith('/services/') && m.body.text.includes('shop-c'))!;
    expect(slackText(slackC.body)).toContain('*Changes*\nno change of this service in the 6 h before it began');
    const hookC = receiver.received.find((m) => m.path === '/hook' && JSON.stringify(m.body).includes('"shop-c"'))!;
    expect(JSON.stringify(hookC.body)).toContain('no change of this service in the 6 h before it began');
  });

  it('a change after the alert began is not named, even in the repeat sent after it', async () => {
    const sent = await round(T1 + 20 * MIN);
    const b = of(await alerts(), 'shop-b');
    expect(b.state).toBe('firing');
    expect(Date.parse(b.activeSince)).toBe(T1 + 5 * MIN);
    // The change exists, and on its own it is significant (failures doubled after it)…
    const changes = (await tw.app.inject({ url: '/api/changes?service=shop-b' })).json().changes;
    expect(changes.map((x: { kind: string; timeMs: number }) => [x.kind, minuteOf(x.timeMs)])).toEqual([
      ['tool_definition', T_LATE],
    ]);
    expect(changes[0].impact.significant).toBe(true);
    // …but it came after the alert began: not a candidate.
    expect(b.attribution).toMatchObject({ likely_change: null, candidates: [] });
    expect(b.attribution!.text).toBe('no change of this service in the 6 h before it began');
    const repeatB = sent.find((m) => m.path.startsWith('/services/') && m.body.text.includes('shop-b'))!;
    expect(repeatB.body.blocks[0]!.text!.text).toContain('STILL FIRING');
    expect(slackText(repeatB.body)).toContain('no change of this service in the 6 h before it began');
    // shop-a's repeat was recomputed over the longer after window and still names T1.
    const a = of(await alerts(), 'shop-a');
    expect(a.attribution!.likely_change!.change.kind).toBe('tool_definition');
    expect(Date.parse(a.attribution!.likely_change!.after.until)).toBe(T1 + 21 * MIN);
    expect(a.attribution!.likely_change!.after.failures).toBe(
      expected(planned, 'shop-a', T1 + MIN, T1 + 21 * MIN).failures,
    );
  });
});
