/**
 * Rule kinds through the evaluator, on a real SQLite store (minute aggregates written directly)
 * with an injected clock: which groups fire, what the message says, and the config checks.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import { createAlerting, type Alerting } from '../../src/alerts/setup.js';
import type { RuleKind } from '../../src/alerts/rules.js';
import { builtinKinds } from '../../src/kinds.js';
import type { AlertMessage } from '../../src/alerts/message.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { emptyBatch, MINUTE_MS, minuteOf, type CallAggregate, type FailureRecord } from '../../src/store/store.js';
import type { OutcomeName } from '../../src/model.js';
import { createMetrics } from '../../src/metrics/registry.js';

const captured: { notifier: string; message: AlertMessage }[] = [];
/** The registries these tests load configs with and build alerting from. */
const kinds = builtinKinds();
beforeAll(() => {
  // A notifier kind of the test's own: shows the registry, and records what would be sent.
  kinds.notifiers.register('capture', {
    needsUrl: false,
    schema: { type: 'object', additionalProperties: false, properties: {} },
    check: () => [],
    create: (s) => ({
      name: s.name,
      kind: 'capture',
      target: 'memory',
      send: async (message) => (captured.push({ notifier: s.name, message }), { kind: 'ok' as const }),
    }),
  });
});

const NOW = Date.UTC(2025, 5, 2, 12, 30, 10);
/** The injected clock of the evaluator and the outbox. */
let clock = NOW;
let store: SqliteStore;
let alerting: Alerting | undefined;
afterEach(async () => {
  captured.length = 0;
  clock = NOW;
  await alerting?.stop();
  await store?.close();
});

function agg(
  minute: number,
  service: string,
  tool: string,
  outcome: OutcomeName,
  count: number,
  model = 'gpt-4o',
): CallAggregate {
  return {
    minute: minuteOf(minute),
    source: 'otlp',
    service,
    model,
    tool,
    outcome,
    reason: outcome === 'unvalidated' ? 'no_schema' : '',
    count,
  };
}

function setup(alerts: Record<string, unknown>, logStream?: Writable): Alerting {
  store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
  const config = loadConfig({
    cwd: '/tmp',
    kinds,
    overrides: { alerts: { notifiers: [{ name: 'mem', kind: 'capture' }], ...alerts } },
  });
  const log = logStream ? pino({ level: 'debug' }, logStream) : pino({ level: 'silent' });
  alerting = createAlerting({ config: config.alerts, kinds, store, log, now: () => clock, metrics: createMetrics() });
  return alerting!;
}

async function write(rows: CallAggregate[], failures: FailureRecord[] = []): Promise<void> {
  await store.write({ ...emptyBatch(), callAggregates: rows, failures });
}

async function evaluateAndDeliver(a: Alerting, now = NOW): Promise<AlertMessage[]> {
  clock = now;
  await a.evaluate(now);
  await a.deliver();
  const out = captured.map((c) => c.message);
  captured.length = 0;
  return out;
}

describe('error_rate', () => {
  it('fires per group above threshold with min_calls checked; names top tools and one example failure', async () => {
    const a = setup({
      rules: [
        {
          name: 'tool-errors',
          kind: 'error_rate',
          window: '5m',
          threshold: 0.05,
          min_calls: 20,
          by: ['service', 'tool'],
        },
      ],
    });
    await write(
      [
        agg(NOW, 'shop', 'get_weather', 'valid', 80),
        agg(NOW - MINUTE_MS, 'shop', 'get_weather', 'SchemaMismatch', 15),
        agg(NOW, 'shop', 'get_weather', 'InvalidJson', 5),
        agg(NOW, 'shop', 'get_weather', 'unvalidated', 500), // never in the denominator
        agg(NOW, 'shop', 'lookup', 'valid', 99),
        agg(NOW, 'shop', 'lookup', 'SchemaMismatch', 1), // 1 % < 5 %
        agg(NOW, 'tiny', 'x', 'InvalidJson', 5), // 100 % but only 5 checked calls
        agg(NOW - 10 * MINUTE_MS, 'old', 'x', 'InvalidJson', 500), // outside the window
      ],
      [
        {
          timeMs: NOW - 30_000,
          source: 'otlp',
          service: 'shop',
          model: 'gpt-4o',
          tool: 'get_weather',
          name: 'get_weather',
          outcome: 'SchemaMismatch',
          traceId: 'ab'.repeat(16),
          spanId: 'cd'.repeat(8),
          arguments: '{"location":42}',
          errors: [
            { instancePath: '/location', keyword: 'type', message: 'must be string', params: { type: 'string' } },
          ],
          message: '/location must be string',
        },
      ],
    );
    const msgs = await evaluateAndDeliver(a);
    expect(msgs).toHaveLength(1);
    const m = msgs[0]!;
    expect(m).toMatchObject({
      status: 'firing',
      rule: 'tool-errors',
      kind: 'error_rate',
      labels: { service: 'shop', tool: 'get_weather' },
      threshold: 0.05,
      repeat: false,
    });
    expect(m.value).toBeCloseTo(20 / 100);
    expect(m.details).toMatchObject({
      checked: 100,
      failed: 20,
      topTools: [{ tool: 'get_weather', failed: 20, checked: 100 }],
    });
    expect(m.details.example).toMatchObject({ outcome: 'SchemaMismatch', path: '/location', traceId: 'ab'.repeat(16) });
    expect(m.link).toContain('/api/failures?service=shop&tool=get_weather&since=');
    const states = await a.store.states();
    expect(states.map((s) => [s.labels.tool, s.state])).toEqual([['get_weather', 'firing']]);

    // Same data next round: still firing, nothing new (repeat_interval 4h).
    expect(await evaluateAndDeliver(a, NOW + 30_000)).toEqual([]);
    // 11 minutes later the window is empty: resolved, once.
    const later = await evaluateAndDeliver(a, NOW + 11 * MINUTE_MS);
    expect(later.map((x) => [x.status, x.labels.tool])).toEqual([['resolved', 'get_weather']]);
    expect(await evaluateAndDeliver(a, NOW + 12 * MINUTE_MS)).toEqual([]);
  });
});

describe('drift', () => {
  it('fires when the tool mix moved (chi-square p and JS distance) and names the tools that moved most', async () => {
    const a = setup({ rules: [{ name: 'tool-mix', kind: 'drift', window: '1h', baseline: '24h' }] });
    const hour = 3_600_000;
    await write([
      // baseline (previous 24 h): search 50 %, fetch 40 %, answer 10 %
      agg(NOW - 5 * hour, 'agent', 'search', 'valid', 500),
      agg(NOW - 5 * hour, 'agent', 'fetch', 'valid', 400),
      agg(NOW - 5 * hour, 'agent', 'answer', 'valid', 100),
      // now: search 85 %, fetch 5 %, answer 10 %
      agg(NOW - 10 * MINUTE_MS, 'agent', 'search', 'valid', 170),
      agg(NOW - 10 * MINUTE_MS, 'agent', 'fetch', 'valid', 10),
      agg(NOW, 'agent', 'answer', 'valid', 20),
      // a steady service: same mix before and now
      agg(NOW - 5 * hour, 'steady', 'search', 'valid', 500),
      agg(NOW - 5 * hour, 'steady', 'fetch', 'valid', 500),
      agg(NOW, 'steady', 'search', 'valid', 101),
      agg(NOW, 'steady', 'fetch', 'valid', 99),
    ]);
    const msgs = await evaluateAndDeliver(a);
    expect(msgs.map((m) => m.labels)).toEqual([{ service: 'agent' }]);
    const d = msgs[0]!.details;
    expect(d.pValue!).toBeLessThan(1e-10);
    expect(d.distance!).toBeGreaterThan(0.2);
    expect(d.shifts!.slice(0, 2)).toEqual([
      { tool: 'fetch', before: 0.4, after: 0.05 },
      { tool: 'search', before: 0.5, after: 0.85 },
    ]);
    expect(msgs[0]!.summary).toContain('fetch 40.0% → 5.0%');
  });

  it('does not fire on a real but immaterial shift (tiny JS distance), nor on too little traffic', async () => {
    const a = setup({ rules: [{ name: 'tool-mix', kind: 'drift', min_distance: 0.1 }] });
    const hour = 3_600_000;
    await write([
      agg(NOW - 5 * hour, 'big', 'search', 'valid', 500_000),
      agg(NOW - 5 * hour, 'big', 'fetch', 'valid', 500_000),
      agg(NOW, 'big', 'search', 'valid', 53_000), // significant at this volume, but a 3-point move
      agg(NOW, 'big', 'fetch', 'valid', 47_000),
      agg(NOW - 5 * hour, 'small', 'search', 'valid', 500),
      agg(NOW - 5 * hour, 'small', 'fetch', 'valid', 500),
      agg(NOW, 'small', 'search', 'valid', 10), // disjoint mix, but 10 calls < min_calls 50
    ]);
    expect(await evaluateAndDeliver(a)).toEqual([]);
    const states = await a.store.states();
    expect(states).toEqual([]);
  });
});

describe('error_rate_drift', () => {
  it('catches 0.2 % → 0.9 % that a fixed 1 % threshold misses', async () => {
    const a = setup({
      rules: [
        { name: 'fixed', kind: 'error_rate', threshold: 0.01, window: '1h' },
        { name: 'rate-drift', kind: 'error_rate_drift', window: '1h', baseline: '24h' },
      ],
    });
    await write([
      agg(NOW - 5 * 3_600_000, 'agent', 'search', 'valid', 99_800),
      agg(NOW - 5 * 3_600_000, 'agent', 'search', 'SchemaMismatch', 200),
      agg(NOW - 10 * MINUTE_MS, 'agent', 'search', 'valid', 4955),
      agg(NOW - 10 * MINUTE_MS, 'agent', 'search', 'SchemaMismatch', 45),
    ]);
    const msgs = await evaluateAndDeliver(a);
    expect(msgs.map((m) => m.rule)).toEqual(['rate-drift']);
    expect(msgs[0]!.value).toBeCloseTo(0.009);
    expect(msgs[0]!.threshold).toBeCloseTo(0.002);
    expect(msgs[0]!.details.z as number).toBeCloseTo(10.0117, 3);
  });
});

describe('by service and model (a model switch)', () => {
  const hour = 3_600_000;

  it('drift by [service, model]: each model’s tool shares against its own baseline', async () => {
    const a = setup({
      rules: [{ name: 'mix-per-model', kind: 'drift', window: '1h', baseline: '24h', by: ['service', 'model'] }],
    });
    await write([
      // gpt-4o: the same mix before and now
      agg(NOW - 5 * hour, 'shop', 'search', 'valid', 500, 'gpt-4o'),
      agg(NOW - 5 * hour, 'shop', 'fetch', 'valid', 500, 'gpt-4o'),
      agg(NOW, 'shop', 'search', 'valid', 100, 'gpt-4o'),
      agg(NOW, 'shop', 'fetch', 'valid', 100, 'gpt-4o'),
      // mini: now calls search nearly always
      agg(NOW - 5 * hour, 'shop', 'search', 'valid', 500, 'mini'),
      agg(NOW - 5 * hour, 'shop', 'fetch', 'valid', 500, 'mini'),
      agg(NOW, 'shop', 'search', 'valid', 190, 'mini'),
      agg(NOW, 'shop', 'fetch', 'valid', 10, 'mini'),
    ]);
    const msgs = await evaluateAndDeliver(a);
    expect(msgs.map((m) => m.labels)).toEqual([{ service: 'shop', model: 'mini' }]);
    expect((await a.store.states()).map((s) => [s.labels.model, s.state]).sort()).toEqual([['mini', 'firing']]);
  });

  it('drift takes `by` of service and model only; execution statuses are failure classes only', () => {
    const rules = [
      { name: 'd', kind: 'drift', by: ['tool'] },
      { name: 'e', kind: 'execution_error_rate', statuses: ['ok'] },
      { name: 'f', kind: 'error_rate', include_execution: 'yes', statuses: [] },
    ];
    expect(() => loadConfig({ cwd: '/tmp', kinds, overrides: { alerts: { rules } } })).toThrow(
      [
        'invalid configuration:',
        '  - alerts.rules.0.by.0: must be one of service, model',
        '  - alerts.rules.1.statuses.0: must be one of client_error, server_error, error, tool_error',
        '  - alerts.rules.2.include_execution: must be boolean',
        '  - alerts.rules.2.statuses: must NOT have fewer than 1 items',
      ].join('\n'),
    );
  });

  it('error_rate_drift by [service, model]: the new model’s rate against its own past', async () => {
    const a = setup({
      rules: [
        {
          name: 'rate-drift',
          kind: 'error_rate_drift',
          window: '1h',
          baseline: '24h',
          by: ['service', 'model'],
          min_calls: 50,
          min_baseline_calls: 500,
        },
      ],
    });
    await write([
      agg(NOW - 5 * hour, 'shop', 'search', 'valid', 9_900, 'gpt-4o'),
      agg(NOW - 5 * hour, 'shop', 'search', 'SchemaMismatch', 100, 'gpt-4o'),
      agg(NOW, 'shop', 'search', 'valid', 990, 'gpt-4o'),
      agg(NOW, 'shop', 'search', 'SchemaMismatch', 10, 'gpt-4o'),
      agg(NOW - 5 * hour, 'shop', 'search', 'valid', 990, 'mini'),
      agg(NOW - 5 * hour, 'shop', 'search', 'SchemaMismatch', 10, 'mini'),
      agg(NOW, 'shop', 'search', 'valid', 900, 'mini'),
      agg(NOW, 'shop', 'search', 'SchemaMismatch', 100, 'mini'),
    ]);
    const msgs = await evaluateAndDeliver(a);
    expect(msgs.map((m) => [m.labels, m.value])).toEqual([[{ service: 'shop', model: 'mini' }, 0.1]]);
  });
});

describe('unvalidated_share', () => {
  it('fires when instrumentation stops capturing arguments', async () => {
    const a = setup({ rules: [{ name: 'blind', kind: 'unvalidated_share', threshold: 0.5, window: '5m' }] });
    await write([
      agg(NOW, 'agent', 'search', 'unvalidated', 90),
      agg(NOW, 'agent', 'search', 'valid', 10),
      agg(NOW, 'ok', 'search', 'valid', 100),
    ]);
    const msgs = await evaluateAndDeliver(a);
    expect(msgs.map((m) => [m.rule, m.labels.service, m.value])).toEqual([['blind', 'agent', 0.9]]);
  });
});

describe('the registry', () => {
  it('takes a kind from elsewhere (as the judge will register judge_goal_rate) with its own loader', async () => {
    const kind: RuleKind<{ threshold: number }, number> = {
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: { threshold: { type: 'number', default: 0.8 } },
      },
      load: async () => 0.6,
      evaluate: (p, rate) => [
        {
          labels: {},
          active: rate < p.threshold,
          value: rate,
          threshold: p.threshold,
          summary: `goal rate ${rate}`,
          details: {},
        },
      ],
    };
    kinds.rules.register('test_goal_rate', kind);
    expect(() => kinds.rules.register('test_goal_rate', kind)).toThrow(/already registered/);
    const a = setup({ rules: [{ name: 'goals', kind: 'test_goal_rate' }] });
    const msgs = await evaluateAndDeliver(a);
    expect(msgs.map((m) => [m.rule, m.value, m.threshold])).toEqual([['goals', 0.6, 0.8]]);
  });
});

describe('configuration', () => {
  it('reports every bad rule and notifier field at once, by path, never echoing a URL (in the config phase)', () => {
    store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    const secret = 'T000/B000/XXXXSECRETXXXX';
    const load = () =>
      loadConfig({
        cwd: '/tmp',
        overrides: {
          alerts: {
            notifiers: [
              { name: 'slack', kind: 'slack', url: `https://evil.example.com/services/${secret}` },
              { name: 'meta', kind: 'webhook', url: `http://169.254.169.254/latest/${secret}` },
              { name: 'lan', kind: 'webhook', url: `https://10.1.2.3/${secret}` },
              { name: 'local', kind: 'webhook', url: `http://localhost:9/${secret}` },
              { name: 'v6', kind: 'webhook', url: `http://[::1]:9/${secret}` },
              { name: 'nourl', kind: 'webhook' },
              { name: 'ok', kind: 'webhook', url: 'https://alerts.example.com/hook', allow_private_addresses: false },
              { name: 'lab', kind: 'webhook', url: 'http://127.0.0.1:9/hook', allow_private_addresses: true },
              { name: 'pager', kind: 'pagerduty' },
              {
                name: 'am',
                kind: 'alertmanager',
                url: 'http://alertmanager:9093',
                resend_interval: '500ms',
                labels: { 'bad-name': 'x' },
              },
              {
                name: 'am-lan',
                kind: 'alertmanager',
                url: 'http://10.0.0.5:9093',
                resend_interval: '30s',
                labels: { cluster: 'eu-1' },
              },
              {
                name: 'slack2',
                kind: 'slack',
                url: 'https://hooks.slack.com/services/T/B/C',
                resend_interval: '1m',
                labels: {},
              },
            ],
            rules: [
              { name: 'a', kind: 'error_rate', threshold: 2, windw: '5m' },
              { name: 'b', kind: 'nope' },
              { name: 'c', kind: 'drift', p_value: 0, notify: ['ghost'] },
              { name: 'd', kind: 'error_rate', by: ['host'] },
            ],
          },
        },
      });
    let err: unknown;
    try {
      load();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^alerts\.notifiers\.0\.url: must be a Slack incoming webhook/),
        expect.stringMatching(/^alerts\.notifiers\.1\.url: points at a loopback, link-local or private address/),
        expect.stringMatching(/^alerts\.notifiers\.2\.url: points at/),
        expect.stringMatching(/^alerts\.notifiers\.3\.url: points at/),
        expect.stringMatching(/^alerts\.notifiers\.4\.url: points at/),
        expect.stringMatching(/^alerts\.notifiers\.5: needs a url/),
        expect.stringMatching(/^alerts\.notifiers\.8\.kind: unknown notifier kind "pagerduty"/),
        'alerts.notifiers.9.resend_interval: must be at least 1s',
        expect.stringMatching(/^alerts\.notifiers\.9\.labels\.bad-name: is not a label name Alertmanager takes/),
        'alerts.notifiers.11.resend_interval: unknown key for this notifier kind slack',
        'alerts.notifiers.11.labels: unknown key for this notifier kind slack',
        'alerts.rules.0.threshold: must be <= 1',
        'alerts.rules.0.windw: unknown key for this rule kind',
        expect.stringMatching(/^alerts\.rules\.1\.kind: unknown rule kind "nope" \(known: .*error_rate.*\)/),
        'alerts.rules.2.notify: no notifier named ghost',
        'alerts.rules.2.p_value: must be > 0',
        expect.stringMatching(/^alerts\.rules\.3\.by\.0: must be one of service, tool, model/),
      ]),
    );
    expect(problems).toHaveLength(17);
    expect(JSON.stringify(problems)).not.toContain('SECRET');
  });

  it('the file schema checks the common keys; SLACK_WEBHOOK_URL supplies the Slack URL', () => {
    expect(() =>
      loadConfig({
        cwd: '/tmp',
        overrides: { alerts: { interval: 'soon', rules: [{ kind: 'error_rate', severity: 'loud' }], bogus: 1 } },
      }),
    ).toThrow(
      expect.objectContaining({
        problems: expect.arrayContaining([
          'alerts.interval: must be a duration such as 30s, 5m, 24h',
          "alerts.rules.0: must have required property 'name'",
          'alerts.rules.0.severity: must be one of critical, warning, info',
          'alerts.bogus: unknown key',
        ]),
      }),
    );
    const url = 'https://hooks.slack.com/services/T1/B1/abc';
    const cfg = loadConfig({ cwd: '/tmp', env: { SLACK_WEBHOOK_URL: url } });
    expect(cfg.alerts.notifiers).toEqual([{ name: 'slack', kind: 'slack', url, options: { allow_any_url: false } }]);
    const cfg2 = loadConfig({
      cwd: '/tmp',
      env: { SLACK_WEBHOOK_URL: url },
      overrides: {
        alerts: {
          notifiers: [
            { name: 'oncall', kind: 'slack' },
            { name: 'log', kind: 'log' },
          ],
        },
      },
    });
    expect(cfg2.alerts.notifiers.map((n) => [n.name, n.url])).toEqual([
      ['oncall', url],
      ['log', undefined],
    ]);
    const defaults = loadConfig({ cwd: '/tmp' }).alerts;
    expect(defaults).toMatchObject({ intervalMs: 30_000, rules: [], notifiers: [{ name: 'log', kind: 'log' }] });
    expect(defaults.delivery).toEqual({
      timeoutMs: 10_000,
      minIntervalMs: 1000,
      minBackoffMs: 1000,
      maxBackoffMs: 300_000,
      giveUpAfterMs: 86_400_000,
      pollMs: 250,
    });
  });

  it('secrets never reach the log: the log notifier and failing webhooks log only scheme and host', async () => {
    const lines: string[] = [];
    const stream = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) });
    const a = setup(
      {
        notifiers: [
          { name: 'log', kind: 'log' },
          // nothing listens on port 9: a connection error, logged and retried
          {
            name: 'hook',
            kind: 'webhook',
            url: 'http://127.0.0.1:9/hooks/SECRET-TOKEN?key=SECRET2',
            allow_private_addresses: true,
          },
        ],
        rules: [{ name: 'r', kind: 'error_rate', threshold: 0.1, min_calls: 1 }],
      },
      stream,
    );
    await write([agg(NOW, 'agent', 'search', 'InvalidJson', 5)]);
    await a.evaluate(NOW);
    await a.deliver();
    const text = lines.join('');
    expect(text).toContain('alert r firing');
    expect(text).toContain('"target":"http://127.0.0.1:9/…"');
    expect(text).toContain('will retry');
    expect(text).not.toContain('SECRET');
    const api = JSON.stringify(a.notifiers.map((n) => n.target));
    expect(api).not.toContain('SECRET');
  });
});
