/**
 * The `alertmanager` notifier against the real Alertmanager 0.25 (Debian `prometheus-alertmanager`)
 * running the shipped route and Slack receiver (deploy/alertmanager/alertmanager.yml, timings
 * shortened), posting to the local Slack stand-in: toolwatch's own alerts appear in
 * GET /api/v2/alerts with their labels, annotations and a link back, are re-sent while firing (endsAt
 * keeps moving ahead), a silence made with amtool suppresses one (nothing reaches Slack for it), and
 * resolution clears the other. Plus the postable alert for every rule kind, drift and judge included.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { AlertMessage } from '../../src/alerts/message.js';
import { alertsEndpoint, postableAlert } from '../../src/alerts/notifiers/alertmanager.js';
import { fakeSlack, type FakeSlack } from '../fakes/slack.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient, type OtelClient } from '../helpers/otel.js';
import { startAlertmanager, type Daemon } from '../deploy/daemons.js';
import { tool } from '../deploy/tools.js';
import { agentCalls, sleep } from './helpers.js';
import { poll } from '../helpers/poll.js';

const deploy = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy');
const PUBLIC = 'https://toolwatch.example.com';

interface AmAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  updatedAt: string;
  generatorURL: string;
  status: { state: string; silencedBy: string[]; inhibitedBy: string[] };
}

describe('the alertmanager notifier with the real Alertmanager', () => {
  let dir: string;
  let slack: FakeSlack;
  let am: Daemon | undefined;
  let tw: Harness | undefined;
  const agents: OtelClient[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-am-notifier-'));
    slack = await fakeSlack();
    const amConfig = parse(readFileSync(path.join(deploy, 'alertmanager/alertmanager.yml'), 'utf8')) as Record<
      string,
      any
    >;
    Object.assign(amConfig.route, { group_wait: '1s', group_interval: '1s', repeat_interval: '1h' });
    writeFileSync(path.join(dir, 'slack-url'), `${slack.url}/services/T0/B0/amtest\n`);
    amConfig.receivers[0].slack_configs[0].api_url_file = path.join(dir, 'slack-url');
    writeFileSync(path.join(dir, 'alertmanager.yml'), stringify(amConfig));
    am = await startAlertmanager(path.join(dir, 'alertmanager.yml'));
    tw = await startToolwatch({
      config: {
        alerts: {
          interval: '200ms',
          public_url: PUBLIC,
          rules: [
            {
              name: 'ToolCallErrors',
              kind: 'error_rate',
              window: '5m',
              threshold: 0.2,
              min_calls: 5,
              by: ['service'],
              severity: 'critical',
            },
          ],
          notifiers: [
            {
              name: 'am',
              kind: 'alertmanager',
              url: am.url,
              resend_interval: '1s',
              labels: { team: 'agents', service: 'never-wins' },
            },
          ],
          delivery: { poll: '50ms', timeout: '2s' },
        },
      },
    });
  }, 60_000);

  afterAll(async () => {
    for (const a of agents) await a.shutdown();
    await tw?.close();
    await am?.stop();
    await slack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('posts alerts to /api/v2/alerts, re-sends them while firing; a silence suppresses one; resolution clears the other', async () => {
    const explain = () =>
      `alertmanager:\n${am!.output()}\nslack:\n${JSON.stringify(
        slack.received.map((r) => r.body),
        null,
        1,
      )}`;
    const alerts = async () => (await (await fetch(`${am!.url}/api/v2/alerts`)).json()) as AmAlert[];
    const of = (list: AmAlert[], service: string) =>
      list.find((a) => a.labels.alertname === 'ToolCallErrors' && a.labels.service === service);

    // An operator silences `search` before anything fires, with amtool, as on call would.
    const silence = tool('amtool', [
      'silence',
      'add',
      `--alertmanager.url=${am!.url}`,
      '--author=test',
      '--comment=search is being fixed',
      '--duration=1h',
      'alertname=ToolCallErrors',
      'service=search',
    ]);
    expect(silence.status, silence.out).toBe(0);
    const silenceId = silence.out.trim();

    const checkout = otelClient(tw!.url, { service: 'checkout', batchSize: 100 });
    const search = otelClient(tw!.url, { service: 'search', batchSize: 100 });
    agents.push(checkout, search);
    await agentCalls(checkout, { valid: 4, invalidJson: 3, mismatch: 3 }); // 60 % > 20 %
    await agentCalls(search, { valid: 2, invalidJson: 8 }); // 80 %

    const both = await poll(
      'both alerts in Alertmanager',
      async () => {
        const list = await alerts();
        const c = of(list, 'checkout');
        const s = of(list, 'search');
        return c && s && c.status.state === 'active' && s.status.state === 'suppressed' ? { c, s } : undefined;
      },
      15_000,
      explain,
    );
    const state = (await (await fetch(`${tw!.url}/api/alerts`)).json()) as {
      alerts: { labels: { service: string }; firingSince: string }[];
    };
    const firingSince = state.alerts.find((a) => a.labels.service === 'checkout')!.firingSince;
    expect(both.c.labels).toEqual({
      alertname: 'ToolCallErrors',
      severity: 'critical',
      service: 'checkout',
      team: 'agents',
    });
    expect(both.c.annotations).toMatchObject({ kind: 'error_rate', value: '0.6', threshold: '0.2', window: '5m' });
    expect(both.c.annotations.summary).toMatch(/^error rate 60% > 20% \(6 of 10 checked calls failed, 5m\)/);
    expect(both.c.annotations.description).toContain('ToolCallErrors (error_rate, critical) for service=checkout');
    expect(both.c.annotations.description).toContain('Top tools: get_weather 6 failed of 10.');
    expect(both.c.annotations.failures).toMatch(
      /^https:\/\/toolwatch\.example\.com\/api\/failures\?service=checkout&since=/,
    );
    expect(both.c.generatorURL).toBe(`${PUBLIC}/?service=checkout&window=5m`);
    expect(both.c.startsAt).toBe(firingSince);
    expect(both.s.status.silencedBy).toEqual([silenceId]);

    // Re-sent while firing, as Prometheus does: endsAt stays a few resend intervals (4 × 1 s) ahead.
    const firstEnd = Date.parse(both.c.endsAt);
    expect(firstEnd - Date.now()).toBeGreaterThan(0);
    expect(firstEnd - Date.now()).toBeLessThanOrEqual(4000 + 500);
    const later = await poll(
      'a re-send moving endsAt ahead',
      async () => {
        const c = of(await alerts(), 'checkout');
        return c && Date.parse(c.endsAt) >= firstEnd + 1500 ? c : undefined;
      },
      10_000,
      explain,
    );
    expect(later.startsAt).toBe(both.c.startsAt);

    // Slack hears of checkout through Alertmanager's route; never of the silenced search.
    const firing = await poll('the Slack message for checkout', async () => slack.received[0], 15_000, explain);
    const title = (r: (typeof slack.received)[number]) =>
      (r.body as unknown as { attachments: { title: string }[] }).attachments[0]!.title;
    expect(title(firing)).toBe('[FIRING:1] ToolCallErrors · checkout');

    // Down for checkout: resolved in toolwatch, sent once with endsAt = the resolution, gone from Alertmanager.
    await agentCalls(checkout, { valid: 90 });
    await poll(
      'checkout to leave Alertmanager',
      async () => (of(await alerts(), 'checkout') ? undefined : true),
      15_000,
      explain,
    );
    const resolved = await poll(
      'the resolved Slack message',
      async () => slack.received.find((r) => title(r).startsWith('[RESOLVED]')),
      15_000,
      explain,
    );
    expect(title(resolved)).toBe('[RESOLVED] ToolCallErrors · checkout');
    // No stale re-send brings it back; the silenced alert is still held, still suppressed.
    await sleep(2500);
    const after = await alerts();
    expect(of(after, 'checkout')).toBeUndefined();
    expect(of(after, 'search')?.status.state).toBe('suppressed');
    expect(slack.received.map(title).filter((t) => t.includes('search'))).toEqual([]);

    // The outbox keeps the transitions (checkout firing and resolved, search firing); re-sends are deleted once sent.
    const api = (await (await fetch(`${tw!.url}/api/alerts`)).json()) as {
      notifiers: unknown[];
      outbox: Record<string, unknown>;
    };
    expect(api.notifiers).toEqual([{ name: 'am', kind: 'alertmanager', target: `${am!.url}/…` }]);
    expect(api.outbox).toMatchObject({ pending: 0, sent: 3, failed: 0 });
    const sent = metricValue(await tw!.metrics(), 'toolwatch_notifications_total', { notifier: 'am', status: 'sent' });
    expect(sent).toBeGreaterThanOrEqual(3 + 4); // the transitions and at least two re-sends per firing alert
  }, 90_000);
});

describe('postable alerts', () => {
  const base: AlertMessage = {
    status: 'firing',
    repeat: false,
    rule: 'r',
    kind: 'error_rate',
    severity: 'warning',
    labels: { service: 'a' },
    groupKey: 'g',
    fingerprint: 'f',
    value: 0.5,
    threshold: 0.1,
    summary: 's',
    details: { window: '5m' },
    startsAt: 1_000,
    endsAt: null,
    link: '/api/failures?service=a',
  };
  const at = { nowMs: 10_000, lifetimeMs: 240_000 };

  it.each([
    [
      'error_rate',
      { labels: { service: 'a', tool: 'search' } },
      { alertname: 'r', severity: 'warning', service: 'a', tool: 'search' },
    ],
    [
      'drift',
      { kind: 'drift', details: { window: '1h', shifts: [{ tool: 'x', before: 0.1, after: 0.6 }] } },
      { alertname: 'r', severity: 'warning', service: 'a' },
    ],
    [
      'error_rate_drift',
      { kind: 'error_rate_drift', labels: { service: 'a', model: 'gpt-4o' } },
      { alertname: 'r', severity: 'warning', service: 'a', model: 'gpt-4o' },
    ],
    ['unvalidated_share', { kind: 'unvalidated_share', labels: {} }, { alertname: 'r', severity: 'warning' }],
    [
      'judge_goal_rate',
      { kind: 'judge_goal_rate', severity: 'info', details: {} },
      { alertname: 'r', severity: 'info', service: 'a' },
    ],
  ] as const)('%s: labels are alertname, severity and the group', (_kind, change, labels) => {
    const a = postableAlert({ ...base, ...change } as AlertMessage, at);
    expect(a.labels).toEqual(labels);
    expect(a.startsAt).toBe(new Date(1_000).toISOString());
    expect(a.endsAt).toBe(new Date(250_000).toISOString());
    expect(a).not.toHaveProperty('generatorURL'); // relative links are not URIs Alertmanager takes
    expect((a.annotations as Record<string, string>).description).toContain('Failures: /api/failures?service=a');
  });

  it('a resolved alert ends at its resolution; the shares that moved are described; static labels never win', () => {
    const a = postableAlert(
      { ...base, status: 'resolved', endsAt: 5_000, page: 'https://tw.example/?service=a&window=5m' },
      { ...at, labels: { alertname: 'x', cluster: 'eu', empty: '' } },
    );
    expect(a).toMatchObject({
      endsAt: new Date(5_000).toISOString(),
      generatorURL: 'https://tw.example/?service=a&window=5m',
    });
    expect(a.labels).toEqual({ alertname: 'r', severity: 'warning', service: 'a', cluster: 'eu' });
    const d = postableAlert(
      {
        ...base,
        kind: 'drift',
        value: 0.42,
        threshold: 0.1,
        details: { shifts: [{ tool: 'x', before: 0.1, after: 0.6 }] },
      },
      at,
    );
    expect((d.annotations as Record<string, string>).description).toContain('Value 0.420 vs threshold 0.100.');
    expect((d.annotations as Record<string, string>).description).toContain('Share moved most: x 10% → 60%.');
  });

  it('the endpoint sits under the Alertmanager URL, route prefix kept', () => {
    expect(alertsEndpoint('http://am:9093')).toBe('http://am:9093/api/v2/alerts');
    expect(alertsEndpoint('http://am:9093/alertmanager/')).toBe('http://am:9093/alertmanager/api/v2/alerts');
    expect(alertsEndpoint('http://am:9093/api/v2/alerts')).toBe('http://am:9093/api/v2/alerts');
  });
});
