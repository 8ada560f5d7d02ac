import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/temp-dir.js';
import { ConfigError, loadConfig } from '../../src/config.js';

function dirWith(yaml: string): string {
  const dir = tempDir('toolwatch-config-');
  writeFileSync(path.join(dir, 'toolwatch.yaml'), yaml);
  return dir;
}

afterAll(removeTempDirs);

describe('config', () => {
  it('defaults without a file, frozen', () => {
    const cfg = loadConfig({ cwd: tempDir('toolwatch-config-'), env: {} });
    expect(cfg.server).toEqual({
      host: '127.0.0.1',
      port: 4318,
      shutdownGraceMs: 10_000,
      corsOrigins: [],
      requestTimeoutMs: 60_000,
      headersTimeoutMs: 10_000,
      connectionTimeoutMs: 120_000,
    });
    expect(cfg.auth).toEqual({ tokens: [], allowUnauthenticated: false });
    expect(cfg.store.redactArguments).toBe('secrets');
    expect(cfg.database.kind).toBe('sqlite');
    expect(cfg.dedupe.executionGraceMs).toBe(10_000);
    expect(Object.isFrozen(cfg)).toBe(true);
    expect(Object.isFrozen(cfg.ingest)).toBe(true);
  });

  it('the shipped config/toolwatch.yaml is valid', () => {
    const cfg = loadConfig({ cwd: process.cwd(), env: {} });
    expect(cfg.configPath).toBe(path.resolve('config/toolwatch.yaml'));
    expect(cfg.server.port).toBe(4318);
  });

  it('env overrides the file; --config and TOOLWATCH_CONFIG pick the file', () => {
    // (0.0.0.0 without tokens needs the escape hatch: see test/auth/config.test.ts)
    const dir = dirWith(
      'server:\n  port: 9000\nlog_level: warn\nauth:\n  allow_unauthenticated: true\ntools:\n  - path: tools.json\n    service: s\n',
    );
    writeFileSync(path.join(dir, 'tools.json'), '[{"name": "get_weather", "parameters": {"type": "object"}}]');
    const cfg = loadConfig({
      cwd: '/',
      argv: ['--config', path.join(dir, 'toolwatch.yaml')],
      env: { PORT: '9100', DATABASE_URL: 'sqlite:/tmp/x.db', LOG_LEVEL: 'debug', HOST: '0.0.0.0' },
    });
    expect(cfg.server.port).toBe(9100);
    expect(cfg.server.host).toBe('0.0.0.0');
    expect(cfg.logLevel).toBe('debug');
    expect(cfg.database).toEqual({ kind: 'sqlite', path: '/tmp/x.db' });
    expect(cfg.tools).toEqual([{ service: 's', path: path.join(dir, 'tools.json') }]);
    const viaEnv = loadConfig({
      cwd: '/',
      env: { TOOLWATCH_CONFIG: path.join(dir, 'toolwatch.yaml'), DATABASE_URL: 'postgres://u@h/db' },
    });
    expect(viaEnv.server.port).toBe(9000);
    expect(viaEnv.database).toEqual({ kind: 'postgres', url: 'postgres://u@h/db' });
  });

  it('reports every bad field at once, with its path', () => {
    const dir = dirWith(
      'server:\n  port: 70000\n  hots: x\ningest:\n  max_body_bytes: -1\n  max_inflight_requests: -1\n  max_event_loop_delay: soon\ndedupe:\n  trace_ttl: soon\nlog_level: loud\ntools:\n  - service: s\n',
    );
    let err: unknown;
    try {
      loadConfig({ cwd: dir, argv: [`--config=${path.join(dir, 'toolwatch.yaml')}`], env: { PORT: 'eighty' } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    expect(problems).toContain('PORT');
    expect(problems).toContain('server.port: must be <= 65535');
    expect(problems).toContain('server.hots: unknown key');
    expect(problems).toContain('ingest.max_body_bytes');
    expect(problems).toContain('ingest.max_inflight_requests: must be >= 0');
    expect(problems).toContain('ingest.max_event_loop_delay: must be a duration');
    expect(problems).toContain('dedupe.trace_ttl: must be a duration');
    expect(problems).toContain('log_level: must be one of');
    expect(problems).toContain("tools.0: must have required property 'path'");
    expect((err as ConfigError).problems.length).toBeGreaterThanOrEqual(9);
  });

  it("one phase: schema problems and every section's own checks (files, cron, regex, rule keys, notifier URLs) together", () => {
    const dir = dirWith(
      [
        'tools:',
        '  - path: missing.json',
        'judge:',
        '  enabled: true',
        "  schedule: 'every hour'",
        '  idle: 0s',
        "  redact: { patterns: ['(unclosed'] }",
        'langfuse:',
        "  schedule: 'soon'",
        'alerts:',
        '  rules: [{ name: r, kind: error_rate, threshold: 3 }]',
        '  notifiers: [{ name: n, kind: webhook, url: "http://10.0.0.1/hook" }]',
        'dedupe:',
        '  trace_ttl: 1y',
      ].join('\n'),
    );
    let err: unknown;
    try {
      loadConfig({ cwd: dir, argv: ['--config', 'toolwatch.yaml'], env: {} });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        'dedupe.trace_ttl: must be a duration such as 30s, 5m, 24h',
        expect.stringMatching(/^tools: .*missing\.json: ENOENT/),
        'judge.model: required when judge.enabled is true',
        'judge.idle: must be longer than 0s',
        expect.stringMatching(/^judge\.redact\.patterns: "\(unclosed" is not a valid regular expression/),
        'judge.schedule: not a cron expression: "every hour"',
        'langfuse.schedule: not a cron expression: "soon"',
        'alerts.rules.0.threshold: must be <= 1',
        expect.stringMatching(/^alerts\.notifiers\.0\.url: points at a loopback, link-local or private address/),
      ]),
    );
    expect(problems).toHaveLength(9);
  });

  it('a trajectory cannot complete while its calls and executions still wait: idle > execution_grace + status_grace', () => {
    expect(() =>
      loadConfig({
        cwd: '/',
        env: {},
        overrides: { dedupe: { execution_grace: '20s', status_grace: '5s' }, trajectories: { idle: '25s' } },
      }),
    ).toThrow('trajectories.idle: must be longer than dedupe.execution_grace + dedupe.status_grace (20s + 5s)');
    const ok = loadConfig({
      cwd: '/',
      env: {},
      overrides: { dedupe: { status_grace: '0s' }, trajectories: { idle: '11s', max_traces: 5 } },
    });
    expect([ok.dedupe.statusGraceMs, ok.trajectories]).toEqual([0, { idleMs: 11_000, maxTraces: 5 }]);
  });

  it('a YAML syntax error is reported with the file', () => {
    const dir = dirWith('server: [unclosed\n');
    expect(() => loadConfig({ cwd: dir, argv: ['--config', 'toolwatch.yaml'], env: {} })).toThrow(/toolwatch\.yaml/);
  });
});
