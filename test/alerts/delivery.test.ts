/**
 * End to end: the real app (SQLite file), the real OTel exporter driving the error rate up and
 * down, the scheduler evaluating every 200 ms, and a local server answering like Slack's
 * incoming webhook. Asserts exactly which messages arrive, when, and how many times.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient, type OtelClient } from '../helpers/otel.js';
import { fakeSlack, slackText, type FakeSlack, type Received } from '../fakes/slack.js';
import { agentCalls, sleep, waitFor } from './helpers.js';

const SECRET = 'T0001/B0001/s3cr3tW3bh00kT0k3n';

function alertsConfig(slack: FakeSlack, delivery: Record<string, string> = {}) {
  return {
    alerts: {
      interval: '200ms',
      public_url: 'https://toolwatch.example.com',
      rules: [
        {
          name: 'tool-errors',
          kind: 'error_rate',
          window: '5m',
          threshold: 0.2,
          min_calls: 5,
          by: ['service'],
          for: '400ms',
          severity: 'critical',
        },
      ],
      notifiers: [{ name: 'oncall', kind: 'slack', url: `${slack.url}/services/${SECRET}`, allow_any_url: true }],
      delivery: {
        poll: '50ms',
        timeout: '1s',
        min_backoff: '300ms',
        max_backoff: '2s',
        min_interval: '1s',
        ...delivery,
      },
    },
  };
}

const status = (r: Received) => (r.body.text.startsWith('Resolved') ? 'resolved' : 'firing');
const summary = (rs: Received[]) => rs.map((r) => `${status(r)}:${r.answered}`);

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn();
  cleanup = [];
});

async function start(
  slack: FakeSlack,
  extra: Record<string, unknown> = {},
  delivery?: Record<string, string>,
): Promise<{ tw: Harness; agent: OtelClient }> {
  const tw = await startToolwatch({ config: { ...alertsConfig(slack, delivery), ...extra } });
  const agent = otelClient(tw.url, { service: 'weather-agent', batchSize: 100 });
  cleanup.push(async () => {
    await agent.shutdown();
    await tw.close();
  });
  return { tw, agent };
}

describe('alert delivery to a Slack-like webhook', () => {
  it('fires once through 500 and 429 (Retry-After honoured), resolves once, one message per second', async () => {
    const slack = await fakeSlack();
    cleanup.push(() => slack.close());
    slack.script(
      { status: 500, body: 'internal_error' },
      { status: 429, body: 'rate_limited', headers: { 'retry-after': '1' } },
    );
    const { tw, agent } = await start(slack);

    const t0 = Date.now();
    await agentCalls(agent, { valid: 4, invalidJson: 3, mismatch: 3 }); // 60 % > 20 %
    await waitFor('the firing message to be accepted', () => slack.received.some((r) => r.answered === 200));
    expect(summary(slack.received)).toEqual(['firing:500', 'firing:429', 'firing:200']);
    const [a1, a2, a3] = slack.received as [Received, Received, Received];
    expect(a1.at - t0).toBeGreaterThanOrEqual(400); // pending for `for` first
    expect(a2.at - a1.at).toBeGreaterThanOrEqual(300); // backoff after the 500
    expect(a3.at - a2.at).toBeGreaterThanOrEqual(1000); // Retry-After: 1
    expect(a2.body).toEqual(a1.body); // the same message each time
    expect(a3.body).toEqual(a1.body);

    // Block Kit: rule, group, value vs threshold, window, top tools, an example with its path, a link.
    const text = slackText(a1.body);
    expect(a1.body.blocks[0]).toMatchObject({ type: 'header' });
    expect(a1.body.text).toMatch(
      // Escaped as Slack documents (it shows &gt; as >).
      /^Firing: tool-errors \(service=weather-agent\): error rate 60% &gt; 20% \(6 of 10 checked calls failed, 5m\)/,
    );
    expect(text).toContain('*Rule*\ntool-errors (error_rate, critical)');
    expect(text).toContain('*Group*\nservice=weather-agent');
    expect(text).toContain('*Value*\n60% vs threshold 20%');
    expect(text).toContain('*Window*\n5m');
    expect(text).toContain('`get_weather`: 6 failed of 10');
    expect(text).toMatch(/\*Example\* \((SchemaMismatch, `get_weather` at `\/location`|InvalidJson, `get_weather`)/);
    expect(text).toContain('<https://toolwatch.example.com/api/failures?service=weather-agent&since=');

    // Down: 6 failed of 50 = 12 % < 20 %.
    await agentCalls(agent, { valid: 40 });
    await waitFor('the resolved message', () => slack.received.some((r) => status(r) === 'resolved'));
    await sleep(1200); // several more evaluations and outbox passes: nothing else may arrive
    expect(summary(slack.received)).toEqual(['firing:500', 'firing:429', 'firing:200', 'resolved:200']);
    const resolved = slack.received[3]!;
    expect(resolved.at - a3.at).toBeGreaterThanOrEqual(1000); // ≤ 1 message per second per webhook
    expect(resolved.body.text).toMatch(/^Resolved: tool-errors \(service=weather-agent\): error rate 12% ≤ 20%/);

    const api = await (await fetch(`${tw.url}/api/alerts`)).text();
    expect(api).not.toContain(SECRET);
    const body = JSON.parse(api) as {
      alerts: Record<string, unknown>[];
      notifiers: unknown[];
      outbox: Record<string, unknown>;
    };
    expect(body.alerts).toEqual([
      expect.objectContaining({
        rule: 'tool-errors',
        labels: { service: 'weather-agent' },
        state: 'resolved',
        value: 0.12,
        threshold: 0.2,
      }),
    ]);
    expect(body.notifiers).toEqual([{ name: 'oncall', kind: 'slack', target: `${slack.url}/…` }]);
    expect(body.outbox).toMatchObject({ pending: 0, sent: 2, failed: 0, recentFailures: [] });
    const metrics = await tw.metrics();
    expect(metricValue(metrics, 'toolwatch_notifications_total', { notifier: 'oncall', status: 'sent' })).toBe(2);
    expect(metricValue(metrics, 'toolwatch_notifications_total', { notifier: 'oncall', status: 'retried' })).toBe(2);
    expect(metricValue(metrics, 'toolwatch_notifications_total', { notifier: 'oncall', status: 'failed' })).toBe(0);
    expect(metrics).toContain('toolwatch_alerts_firing{rule="tool-errors"} 0');
  });

  it('records permanent 4xx answers (404 no_service, 400 invalid_payload), surfaces them, never retries them', async () => {
    const slack = await fakeSlack();
    cleanup.push(() => slack.close());
    slack.script({ status: 404, body: 'no_service' }, { status: 400, body: 'invalid_payload' });
    const { tw, agent } = await start(slack);

    await agentCalls(agent, { valid: 2, invalidJson: 8 });
    await waitFor('the firing attempt', () => slack.received.length === 1);
    expect(await firingGauge(tw, 1)).toBe(1);
    await agentCalls(agent, { valid: 90 });
    await waitFor('the resolved attempt', () => slack.received.length === 2);
    await sleep(1500);
    expect(summary(slack.received)).toEqual(['firing:404', 'resolved:400']);

    const body = (await (await fetch(`${tw.url}/api/alerts`)).json()) as {
      outbox: { failed: number; pending: number; recentFailures: Record<string, unknown>[] };
    };
    expect(body.outbox.pending).toBe(0);
    expect(body.outbox.failed).toBe(2);
    expect(body.outbox.recentFailures).toEqual([
      expect.objectContaining({
        notifier: 'oncall',
        rule: 'tool-errors',
        status: 'resolved',
        attempts: 1,
        error: '400 invalid_payload',
      }),
      expect.objectContaining({
        notifier: 'oncall',
        rule: 'tool-errors',
        status: 'firing',
        attempts: 1,
        error: '404 no_service',
      }),
    ]);
    const metrics = await tw.metrics();
    expect(metricValue(metrics, 'toolwatch_notifications_total', { notifier: 'oncall', status: 'failed' })).toBe(2);
    expect(metricValue(metrics, 'toolwatch_notifications_total', { notifier: 'oncall', status: 'retried' })).toBe(0);
  });

  it('a response slower than the timeout is retried: the message arrives twice, never more', async () => {
    const slack = await fakeSlack();
    cleanup.push(() => slack.close());
    slack.script({ status: 200, body: 'ok', delayMs: 1500 });
    const { tw } = await start(slack, {}, { timeout: '500ms' });
    const agent = otelClient(tw.url, { service: 'weather-agent', batchSize: 100 });
    cleanup.push(() => agent.shutdown());

    await agentCalls(agent, { invalidJson: 10 });
    await waitFor('the retry', () => slack.received.length === 2);
    const [first, second] = slack.received as [Received, Received];
    expect(second.at - first.at).toBeGreaterThanOrEqual(500 + 300); // timeout, then backoff
    await sleep(1500);
    expect(summary(slack.received)).toEqual(['firing:200', 'firing:200']);
    expect(second.body).toEqual(first.body);
  });

  it('a restart mid-delivery resends the message from the outbox: at most one duplicate, nothing lost', async () => {
    const slack = await fakeSlack();
    cleanup.push(() => slack.close());
    const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-alerts-restart-'));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    const db = { database_url: path.join(dir, 'toolwatch.db') };

    // First process: the firing message is on the wire when the process goes away.
    slack.script({ status: 200, hold: true });
    const first = await startToolwatch({ config: { ...alertsConfig(slack), ...db } });
    const agent1 = otelClient(first.url, { service: 'weather-agent', batchSize: 100 });
    await agentCalls(agent1, { valid: 4, mismatch: 6 });
    await waitFor('the first attempt', () => slack.received.length === 1);
    await agent1.shutdown();
    await first.close(); // the outbox gives the held request 1 s, then aborts it

    // Second process on the same database: resends, and does not fire the alert a second time.
    const second = await startToolwatch({ config: { ...alertsConfig(slack), ...db } });
    const agent2 = otelClient(second.url, { service: 'weather-agent', batchSize: 100 });
    cleanup.push(async () => {
      await agent2.shutdown();
      await second.close();
    });
    await waitFor('the resend', () => slack.received.length === 2);
    await sleep(800);
    expect(summary(slack.received)).toEqual(['firing:held', 'firing:200']);
    expect(slack.received[1]!.body).toEqual(slack.received[0]!.body);
    const state = (await (await fetch(`${second.url}/api/alerts`)).json()) as { alerts: { state: string }[] };
    expect(state.alerts.map((a) => a.state)).toEqual(['firing']);

    // Down again in the second process: one resolved message.
    await agentCalls(agent2, { valid: 50 });
    await waitFor('the resolved message', () => slack.received.length === 3);
    await sleep(800);
    expect(summary(slack.received)).toEqual(['firing:held', 'firing:200', 'resolved:200']);
  });
});

describe('one notifier never holds another back', () => {
  it('a webhook that never answers does not delay Slack: each notifier has its own delivery loop', async () => {
    const slack = await fakeSlack();
    const hook = await fakeSlack(); // a webhook receiver that takes the request and never answers
    cleanup.push(
      () => slack.close(),
      () => hook.close(),
    );
    hook.script({ status: 200, hold: true }, { status: 200, hold: true }, { status: 200, hold: true });
    const tw = await startToolwatch({
      config: {
        alerts: {
          interval: '100ms',
          rules: [
            {
              name: 'hook-errors',
              kind: 'error_rate',
              window: '5m',
              threshold: 0.2,
              min_calls: 5,
              service: 'billing',
              notify: ['hook'],
            },
            {
              name: 'slack-errors',
              kind: 'error_rate',
              window: '5m',
              threshold: 0.2,
              min_calls: 5,
              service: 'search',
              notify: ['oncall'],
            },
          ],
          notifiers: [
            { name: 'hook', kind: 'webhook', url: `${hook.url}/hook`, allow_private_addresses: true },
            { name: 'oncall', kind: 'slack', url: `${slack.url}/services/${SECRET}`, allow_any_url: true },
          ],
          // A hanging receiver holds its attempt for the whole timeout.
          delivery: { poll: '50ms', timeout: '4s', min_backoff: '300ms', max_backoff: '2s', min_interval: '1s' },
        },
      },
    });
    const billing = otelClient(tw.url, { service: 'billing', batchSize: 100 });
    const search = otelClient(tw.url, { service: 'search', batchSize: 100 });
    cleanup.push(async () => {
      await billing.shutdown();
      await search.shutdown();
      await tw.close();
    });

    await agentCalls(billing, { invalidJson: 10 });
    await waitFor('the webhook attempt to hang', () => hook.received.length === 1);
    await agentCalls(search, { invalidJson: 10 });
    const message = await waitFor('the Slack message', () => slack.received[0], 8000);
    const alerts = (await (await fetch(`${tw.url}/api/alerts`)).json()) as {
      alerts: { rule: string; firingSince: string }[];
    };
    const firingSince = Date.parse(alerts.alerts.find((a) => a.rule === 'slack-errors')!.firingSince);
    // Written to the outbox at firingSince; Slack's loop picks it up within a poll or two, not after the webhook's 4 s.
    expect(message.at - firingSince).toBeLessThan(1000);
    expect(message.body.text).toMatch(/^Firing: slack-errors \(service=search\)/);
    expect(hook.received.map((r) => r.answered)).toEqual(['held']);
  });
});

/** toolwatch_alerts_firing{rule="tool-errors"} once it reaches `want` (or its value after 5 s). */
async function firingGauge(tw: Harness, want: number): Promise<number> {
  const until = Date.now() + 5000;
  for (;;) {
    const v = metricValue(await tw.metrics(), 'toolwatch_alerts_firing', { rule: 'tool-errors' });
    if (v === want || Date.now() > until) return v;
    await sleep(50);
  }
}
