/**
 * The scrape-to-Slack path with the real servers: toolwatch on a socket, fed through the real
 * OpenTelemetry exporter; Prometheus scraping it with the shipped scrape job and rules; Alertmanager
 * with the shipped route and Slack receiver, posting to a local stand-in for Slack's incoming
 * webhook. Only timings are shortened (scrape and evaluation 1 s, `for` 1 s, group_wait 1 s): the
 * expressions, labels, annotations, routing, inhibition and message templates are the shipped ones
 * (toolwatch-rules.test.yml covers the real `for`/`keep_firing_for` timing in promtool).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { agentCalls } from '../alerts/helpers.js';
import { fakeSlack, type FakeSlack } from '../fakes/slack.js';
import { bearer, tokenConfig } from '../auth/tokens.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient, type OtelClient } from '../helpers/otel.js';
import { startAlertmanager, startPrometheus, type Daemon } from './daemons.js';
import { poll as pollEvery } from '../helpers/poll.js';

const deploy = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy');
const readYaml = (file: string) => parse(readFileSync(path.join(deploy, file), 'utf8')) as Record<string, any>;
const hostOf = (url: string) => new URL(url).host;
const WEBHOOK_PATH = '/services/T0000TEST/B0000TEST/toolwatchtesttoken';

interface SlackAttachment {
  title: string;
  text: string;
  color?: string;
}

interface PromAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: string;
  value: string;
}

/** Prometheus evaluates every second: polled every 200 ms. */
const poll = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, explain: () => string) =>
  pollEvery(what, probe, timeoutMs, explain, 200);

describe('Prometheus → Alertmanager → Slack, with the real servers', () => {
  let tw: Harness;
  let slack: FakeSlack;
  let am: Daemon | undefined;
  let prom: Daemon | undefined;
  let client: OtelClient;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-alert-path-'));
    slack = await fakeSlack();
    // toolwatch with tokens, as deployed: the agent and Prometheus each send theirs.
    const made = tokenConfig(dir, { agent: { scopes: ['ingest'] }, prometheus: { scopes: ['metrics'] } });
    tw = await startToolwatch({ config: { auth: made.auth } });
    client = otelClient(tw.url, { service: 'checkout', headers: bearer(made.tokens.agent!) });
    const metricsToken = made.tokens.prometheus!.file;

    const amConfig = readYaml('alertmanager/alertmanager.yml');
    Object.assign(amConfig.route, { group_wait: '1s', group_interval: '1s', repeat_interval: '1h' });
    const webhookFile = path.join(dir, 'slack-webhook-url');
    writeFileSync(webhookFile, `${slack.url}${WEBHOOK_PATH}\n`);
    amConfig.receivers[0].slack_configs[0].api_url_file = webhookFile;
    writeFileSync(path.join(dir, 'alertmanager.yml'), stringify(amConfig));
    am = await startAlertmanager(path.join(dir, 'alertmanager.yml'));

    const rules = readYaml('prometheus/toolwatch-rules.yml');
    for (const group of rules.groups) {
      for (const rule of group.rules) {
        if (rule.for) rule.for = '1s';
        if (rule.keep_firing_for) rule.keep_firing_for = '1s';
      }
    }
    writeFileSync(path.join(dir, 'rules.yml'), stringify(rules));
    const promConfig = readYaml('prometheus/prometheus.yml');
    promConfig.global = { scrape_interval: '1s', evaluation_interval: '1s' };
    promConfig.rule_files = [path.join(dir, 'rules.yml')];
    promConfig.alerting.alertmanagers[0].static_configs = [{ targets: [hostOf(am.url)] }];
    const job = promConfig.scrape_configs.find((j: { job_name: string }) => j.job_name === 'toolwatch');
    job.static_configs = [{ targets: [hostOf(tw.url)] }];
    // The shipped job reads its token from a file (a secret in compose): here, the test's token file.
    job.authorization.credentials_file = metricsToken;
    writeFileSync(path.join(dir, 'prometheus.yml'), stringify(promConfig));
    prom = await startPrometheus(path.join(dir, 'prometheus.yml'));
  }, 60_000);

  afterAll(async () => {
    await client?.shutdown();
    await prom?.stop();
    await am?.stop();
    await slack?.close();
    await tw?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a rising error rate fires ToolwatchToolCallErrorRate and the combined rate in Prometheus; Slack gets the combined one, Alertmanager holds back the narrower one', async () => {
    const explain = () => `prometheus:\n${prom!.output()}\nalertmanager:\n${am!.output()}`;
    // A third of checkout's calls fail (InvalidJson, SchemaMismatch), 30 calls a second, until the alert fires.
    let sending = true;
    const traffic = (async () => {
      while (sending) {
        await agentCalls(client, { valid: 4, invalidJson: 1, mismatch: 1 });
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    try {
      const firing = await poll(
        'ToolwatchToolCallErrorRate firing in Prometheus',
        async () => {
          const body = (await (await fetch(`${prom!.url}/api/v1/alerts`)).json()) as { data: { alerts: PromAlert[] } };
          return body.data.alerts.find(
            (a) => a.labels.alertname === 'ToolwatchToolCallErrorRate' && a.state === 'firing',
          );
        },
        40_000,
        explain,
      );
      expect(firing.labels).toEqual({
        alertname: 'ToolwatchToolCallErrorRate',
        service: 'checkout',
        severity: 'warning',
      });
      expect(Number(firing.value)).toBeGreaterThan(0.2);
      expect(Number(firing.value)).toBeLessThan(0.5);
      expect(firing.annotations.summary).toMatch(/^Tool-call error rate of checkout is \d+(\.\d+)?%$/);
      expect(firing.annotations.description).toContain('/api/failures?service=checkout');
      // No tool spans here, so no executions: the combined rate is the structural one.
      const combined = await poll(
        'ToolwatchToolCallCombinedErrorRate firing in Prometheus',
        async () => {
          const body = (await (await fetch(`${prom!.url}/api/v1/alerts`)).json()) as { data: { alerts: PromAlert[] } };
          return body.data.alerts.find(
            (a) => a.labels.alertname === 'ToolwatchToolCallCombinedErrorRate' && a.state === 'firing',
          );
        },
        20_000,
        explain,
      );
      expect(combined.labels).toEqual({
        alertname: 'ToolwatchToolCallCombinedErrorRate',
        service: 'checkout',
        severity: 'warning',
      });
      expect(Number(combined.value)).toBeGreaterThan(0.2);

      const titleOf = (m: (typeof slack.received)[number]) =>
        (m.body as unknown as { attachments: SlackAttachment[] }).attachments[0]!.title;
      const message = await poll(
        'the Slack message of the combined rate',
        async () => slack.received.find((m) => titleOf(m).includes('ToolwatchToolCallCombinedErrorRate')),
        20_000,
        explain,
      );
      expect(message.path).toBe(WEBHOOK_PATH);
      const [attachment] = (message.body as unknown as { attachments: SlackAttachment[] }).attachments;
      expect(attachment!.title).toBe('[FIRING:1] ToolwatchToolCallCombinedErrorRate · checkout');
      expect(attachment!.text).toContain('*Combined tool-call error rate of checkout is ');
      expect(attachment!.text).toContain('(warning)');
      expect(attachment!.text).toContain('See /api/failures?service=checkout and toolwatch_tool_executions_total.');

      // Alertmanager holds both from this Prometheus; the narrower one is inhibited by the combined one.
      type AmAlert = { labels: Record<string, string>; status: { state: string; inhibitedBy: string[] } };
      const held = await poll(
        'the structural alert inhibited in Alertmanager',
        async () => {
          const all = (await (await fetch(`${am!.url}/api/v2/alerts`)).json()) as AmAlert[];
          const rows = all.map((a) => [a.labels.alertname, a.labels.service, a.status.state]).sort();
          return rows.length === 2 && rows[1]![2] === 'suppressed' ? rows : undefined;
        },
        20_000,
        explain,
      );
      expect(held).toEqual([
        ['ToolwatchToolCallCombinedErrorRate', 'checkout', 'active'],
        ['ToolwatchToolCallErrorRate', 'checkout', 'suppressed'],
      ]);
    } finally {
      sending = false;
      await traffic;
    }
  }, 90_000);
});
