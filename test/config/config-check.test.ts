/**
 * `toolwatch config check`: the effective configuration (every default, every environment override,
 * rule kinds' defaults) with no secret in it, or every problem on stderr and exit 2 — without
 * opening the store or writing anything.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../src/cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-config-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SLACK_TOKEN = 'T0SECRET/B0SECRET/slackTOKENvalue';
const HOOK_TOKEN = 'hookTOKENvalue';
const FILE_URL_TOKEN = 'fileTOKENvalue';
const PG_PASSWORD = 'pgPASSWORDvalue';
const JUDGE_KEY = 'sk-judgeKEYvalue';
const LF_SECRET = 'sk-lf-secretVALUE';
const OTEL_HEADER = 'Bearer otelHEADERvalue';
const API_TOKEN_FILE = 'apiTOKENfromFILEvalue';
const API_TOKEN_ENV = 'apiTOKENfromENVvalue';
const SECRETS = [
  API_TOKEN_FILE,
  API_TOKEN_ENV,
  SLACK_TOKEN,
  HOOK_TOKEN,
  FILE_URL_TOKEN,
  PG_PASSWORD,
  JUDGE_KEY,
  LF_SECRET,
  OTEL_HEADER,
  'slackTOKEN',
  'otelHEADER',
];

async function check(config: string, env: Record<string, string> = {}) {
  const file = path.join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, config);
  let out = '';
  let err = '';
  const code = await runCli(['config', 'check', '--config', file], env, {
    out: (s) => (out += s),
    err: (s) => (err += s),
  });
  return { code, out, err, file };
}

describe('toolwatch config check', () => {
  it('prints the effective configuration, every secret redacted', async () => {
    writeFileSync(path.join(dir, 'hook-url'), `https://alerts.example.com/hooks/${FILE_URL_TOKEN}\n`);
    writeFileSync(path.join(dir, 'api-token'), `${API_TOKEN_FILE}\n`);
    const { code, out, err, file } = await check(
      `
database_url: postgres://toolwatch:${PG_PASSWORD}@db.internal:5432/toolwatch
server: {port: 9999}
auth:
  tokens:
    - {name: collector, token_file: api-token, scopes: [ingest]}
    - {name: grafana, token_env: TW_READ_TOKEN, scopes: [read, metrics]}
alerts:
  public_url: https://toolwatch.example.com
  rules:
    - {name: drifted, kind: drift, service: checkout}
  notifiers:
    - {name: oncall, kind: slack}
    - {name: hook, kind: webhook, url: https://alerts.example.com/hooks/${HOOK_TOKEN}}
    - {name: file-hook, kind: webhook, url_file: hook-url}
    - {name: am, kind: alertmanager, url: http://alertmanager:9093, labels: {cluster: eu-1}}
judge: {enabled: true, model: gpt-4o-mini}
langfuse: {enabled: true}
`,
      {
        SLACK_WEBHOOK_URL: `https://hooks.slack.com/services/${SLACK_TOKEN}`,
        JUDGE_API_KEY: JUDGE_KEY,
        LANGFUSE_PUBLIC_KEY: 'pk-lf-public',
        LANGFUSE_SECRET_KEY: LF_SECRET,
        LOG_LEVEL: 'warn',
        TW_READ_TOKEN: API_TOKEN_ENV,
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_HEADERS: `authorization=${OTEL_HEADER}`,
      },
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    for (const s of SECRETS) expect(out).not.toContain(s);
    expect(out).toContain(`# config file: ${file}`);
    expect(out).toContain('JUDGE_API_KEY (set)');
    expect(out).toContain('LANGFUSE_SECRET_KEY (set)');
    expect(out).toContain('SLACK_WEBHOOK_URL (set)');
    expect(out).toContain('LOG_LEVEL=warn');
    expect(out).toContain('TW_READ_TOKEN (set)');
    expect(out).toContain('# self-telemetry: on (OTEL_TRACES_EXPORTER), exporters otlp, service.name toolwatch');
    expect(out).toContain('OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318/');
    expect(out).toContain('OTEL_EXPORTER_OTLP_HEADERS=authorization=[redacted]');

    const eff = parse(out) as Record<string, any>;
    expect(eff.database_url).toBe('postgres://toolwatch:%5Bredacted%5D@db.internal:5432/toolwatch');
    expect(eff.server).toEqual({
      host: '127.0.0.1',
      port: 9999,
      shutdown_grace: '10s',
      cors_origins: [],
      request_timeout: '60s',
      headers_timeout: '10s',
      connection_timeout: '2m',
    });
    // Tokens by name and where they come from, never their values.
    expect(
      eff.auth.tokens.map((t: { name: string; token_file?: string; token_env?: string }) => [
        t.name,
        t.token_file ?? t.token_env,
      ]),
    ).toEqual([
      ['collector', 'api-token'],
      ['grafana', 'TW_READ_TOKEN'],
    ]);
    expect(eff.log_level).toBe('warn');
    expect(eff.ingest.max_body_bytes).toBe(8 * 1024 * 1024);
    expect(eff.ingest).toMatchObject({ max_inflight_requests: 1024, max_event_loop_delay: '250ms' });
    expect(eff.store).toEqual({
      failures_per_tool_per_minute: 20,
      retention_days: 14,
      sqlite_synchronous: 'NORMAL',
      sqlite_busy_timeout: '100ms',
      sqlite_checkpoint: 'inline',
      redact_arguments: 'secrets',
    });
    // The rule with its kind's defaults, as the evaluator runs it.
    expect(eff.alerts.rules).toEqual([
      {
        name: 'drifted',
        kind: 'drift',
        service: 'checkout',
        for: '0s',
        keep_firing_for: '0s',
        repeat_interval: '4h',
        severity: 'warning',
        window: '1h',
        baseline: '24h',
        p_value: 0.001,
        min_distance: 0.1,
        min_calls: 50,
        min_baseline_calls: 200,
        by: ['service'],
      },
    ]);
    expect(eff.alerts.notifiers.map((n: { url?: string; url_file?: string }) => n.url ?? n.url_file)).toEqual([
      'https://hooks.slack.com/…',
      'https://alerts.example.com/…',
      'hook-url',
      'http://alertmanager:9093/…',
    ]);
    expect(eff.judge).toMatchObject({ enabled: true, model: 'gpt-4o-mini', sample_rate: 0.02 });
    expect(eff.telemetry).toEqual({ enabled: false, service_name: 'toolwatch' });
    expect(eff.dedupe.status_grace).toBe('2s');
    expect(eff.trajectories).toEqual({ idle: '1m', max_traces: 20000 });
    // Nothing was opened or written.
    expect(existsSync(path.join(dir, 'data'))).toBe(false);
  });

  it('defaults only: no file, no environment', async () => {
    let out = '';
    const code = await runCli(
      ['config', 'check', '--config', path.join(dir, 'missing.yaml')],
      {},
      { out: (s) => (out += s), err: () => undefined },
    );
    expect(code).toBe(2); // an explicitly named file must exist
    const empty = await check('');
    expect(empty.code).toBe(0);
    expect(empty.out).toContain('# environment read: (none)');
    expect(empty.out).toContain('# self-telemetry: off (the default)');
    expect((parse(empty.out) as Record<string, any>).alerts.notifiers).toEqual([{ name: 'log', kind: 'log' }]);
    expect(out).toBe('');
  });

  it('every problem on stderr, exit 2, nothing on stdout', async () => {
    const { code, out, err } = await check(
      `
server: {port: 70000}
alerts:
  notifiers: [{name: s, kind: slack, url: https://evil.example.com/${SLACK_TOKEN}}]
  rules: [{name: r, kind: error_rate, threshold: 3}]
bogus: 1
`,
      { OTEL_TRACES_EXPORTER: 'jaeger' },
    );
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain('server.port: must be <= 65535');
    expect(err).toContain('bogus: unknown key');
    expect(err).toContain('alerts.notifiers.0.url: must be a Slack incoming webhook');
    expect(err).toContain('alerts.rules.0.threshold: must be <= 1');
    expect(err).toContain('OTEL_TRACES_EXPORTER: unknown exporter "jaeger"');
    expect(err).not.toContain('SECRET');
  });

  it('refuses unknown arguments', async () => {
    let err = '';
    expect(await runCli(['config', 'check', '--verbose'], {}, { out: () => undefined, err: (s) => (err += s) })).toBe(
      2,
    );
    expect(err).toContain('toolwatch config check [--config FILE]');
  });
});
