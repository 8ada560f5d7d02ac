/**
 * deploy/compose/compose.yaml, checked without a Docker engine: every file it mounts or builds
 * from exists, images are pinned, and the names and ports in the configs it mounts agree with
 * its services (Prometheus targets, Alertmanager, Grafana's data source, the Collector chain,
 * toolwatch's own config as toolwatch itself loads it).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/temp-dir.js';
import { loadConfig } from '../../src/config.js';
import { deploy, hostPort, imageEnv, readYaml } from './files.js';

const composeDir = path.join(deploy, 'compose');
const compose = readYaml(path.join(composeDir, 'compose.yaml'));
const services = compose.services as Record<string, any>;

/** What the user must set (`${VAR:?message}`): the test sets it as they would. */
const REQUIRED: Record<string, string> = { TOOLWATCH_TOKEN: 'compose-test-token-0123456789abcdef' };
/** `${VAR:-default}` / `${VAR}` / `${VAR:?message}` as compose interpolates them with only REQUIRED set. */
const interpolate = (s: string) =>
  s.replace(
    /\$\{(\w+)(?:(:?-)([^}]*)|:\?([^}]*))?\}/g,
    (_m, v: string, dash: string | undefined, dflt: string | undefined, required: string | undefined) => {
      if (required !== undefined) {
        if (!(v in REQUIRED)) throw new Error(`compose would stop: ${required}`);
        return REQUIRED[v]!;
      }
      return dash ? (dflt ?? '') : (REQUIRED[v] ?? '');
    },
  );

interface Mount {
  source: string;
  target: string;
  bind: boolean;
}
function mounts(service: string): Mount[] {
  return (services[service].volumes ?? []).map((v: string) => {
    const [source, target] = v.split(':') as [string, string];
    const bind = source.startsWith('.') || source.startsWith('/');
    return { source: bind ? path.resolve(composeDir, source) : source, target, bind };
  });
}
/** The host file behind a path inside a service's container (through its bind mounts). */
function hostFile(service: string, containerPath: string): string {
  for (const m of mounts(service)) {
    if (!m.bind) continue;
    if (containerPath === m.target) return m.source;
    if (containerPath.startsWith(`${m.target}/`)) return path.join(m.source, containerPath.slice(m.target.length + 1));
  }
  throw new Error(`${service}: ${containerPath} is not inside a bind mount`);
}
function flag(service: string, name: string): string {
  const args: string[] = services[service].command;
  const a = args.find((x) => x.startsWith(`${name}=`));
  if (!a) throw new Error(`${service}: no ${name}`);
  return a.slice(name.length + 1);
}
const env = (service: string): Record<string, string> =>
  Object.fromEntries(Object.entries(services[service].environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]));

const toolwatches = Object.keys(services).filter((s) => services[s].image === 'toolwatch:local');

/** The content of /run/secrets/<name> in a service's container, written to a host file. */
function secretFile(service: string, containerPath: string): string {
  const name = containerPath.replace(/^\/run\/secrets\//, '');
  expect(services[service].secrets ?? [], `${service}: ${containerPath}`).toContain(name);
  const s = compose.secrets[name] as { file?: string; environment?: string };
  if (s.file) return path.resolve(composeDir, interpolate(s.file));
  const file = path.join(tempDir('toolwatch-compose-secret-'), name);
  writeFileSync(file, REQUIRED[s.environment!]!);
  return file;
}

/** toolwatch's config in a compose service, loaded the way the process in its container would (secrets mounted). */
function toolwatchConfig(service: string) {
  const e = { ...imageEnv(), ...env(service) };
  const file = hostFile(service, e.TOOLWATCH_CONFIG!);
  const tokens = (parse(readFileSync(file, 'utf8')).auth?.tokens ?? []) as { token_file?: string }[];
  const auth = {
    tokens: tokens.map((t) => (t.token_file ? { ...t, token_file: secretFile(service, t.token_file) } : t)),
  };
  return loadConfig({
    argv: ['--config', file],
    env: { ...e, TOOLWATCH_CONFIG: undefined },
    cwd: path.dirname(file),
    overrides: { auth },
  });
}

afterAll(removeTempDirs);

describe('compose.yaml', () => {
  it('runs two toolwatch replicas built from the repository Dockerfile', () => {
    expect(toolwatches).toEqual(['toolwatch-1', 'toolwatch-2']);
    for (const s of toolwatches) {
      const build = services[s].build;
      expect(statSync(path.join(composeDir, build.context, build.dockerfile)).isFile()).toBe(true);
    }
  });

  it('pins every other image to a version', () => {
    for (const [name, s] of Object.entries(services)) {
      if (s.build) continue;
      expect(s.image, name).toMatch(/^[\w./-]+:v?\d+\.\d+(\.\d+)?(-[\w.]+)?$/);
    }
  });

  it('every file it mounts, builds from or reads as a secret exists; every named volume is declared', () => {
    for (const name of Object.keys(services)) {
      for (const m of mounts(name)) {
        if (m.bind) expect(existsSync(m.source), `${name}: ${m.source}`).toBe(true);
        else expect(Object.keys(compose.volumes), `${name}: volume ${m.source}`).toContain(m.source);
      }
      for (const secret of services[name].secrets ?? []) {
        expect(Object.keys(compose.secrets), `${name}: secret ${secret}`).toContain(secret);
      }
    }
    for (const [name, s] of Object.entries(
      compose.secrets as Record<string, { file?: string; environment?: string }>,
    )) {
      if (s.environment) expect(Object.keys(REQUIRED), `secret ${name}`).toContain(s.environment);
      else expect(existsSync(path.resolve(composeDir, interpolate(s.file!))), `secret ${name}`).toBe(true);
    }
  });

  it('publishes ports on 127.0.0.1 only', () => {
    for (const [name, s] of Object.entries(services))
      for (const p of s.ports ?? []) expect(p, name).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });

  it('toolwatch loads its config as the container would: on 0.0.0.0 with a token from a secret, the published port, the shared PostgreSQL', () => {
    for (const s of toolwatches) {
      const cfg = toolwatchConfig(s);
      expect(cfg.server.host).toBe('0.0.0.0');
      // A token, not the escape hatch.
      expect(cfg.auth.allowUnauthenticated).toBe(false);
      expect(cfg.auth.tokens.map((t) => [t.source.kind, t.scopes])).toEqual([
        ['file', ['ingest', 'read', 'metrics', 'admin']],
      ]);
      expect(services[s].ports.map((p: string) => Number(p.split(':')[2]))).toEqual([cfg.server.port]);
      expect(cfg.database.kind).toBe('postgres');
      const url = new URL((cfg.database as { url: string }).url);
      expect(url.hostname).toBe('postgres');
      const pg = env('postgres');
      expect([url.username, decodeURIComponent(url.password), url.pathname.slice(1)]).toEqual([
        pg.POSTGRES_USER,
        pg.POSTGRES_PASSWORD,
        pg.POSTGRES_DB,
      ]);
    }
    expect(Object.keys(services.postgres.healthcheck)).toContain('test');
  });

  it('Prometheus loads the mounted config and rules, scrapes every replica where it listens, alerts to Alertmanager', () => {
    const configFile = hostFile('prometheus', flag('prometheus', '--config.file'));
    const prom = readYaml(configFile);
    for (const rf of prom.rule_files) expect(existsSync(path.resolve(path.dirname(configFile), rf)), rf).toBe(true);
    const job = prom.scrape_configs.find((j: { job_name: string }) => j.job_name === 'toolwatch');
    const targets = job.static_configs.flatMap((c: { targets: string[] }) => c.targets).map(hostPort);
    expect(targets).toEqual(toolwatches.map((s) => ({ host: s, port: toolwatchConfig(s).server.port })));
    // It scrapes with the token the replicas accept, from the same secret.
    expect(readFileSync(secretFile('prometheus', job.authorization.credentials_file), 'utf8')).toBe(
      REQUIRED.TOOLWATCH_TOKEN,
    );
    const [am] = prom.alerting.alertmanagers[0].static_configs[0].targets.map(hostPort);
    expect(am).toEqual({ host: 'alertmanager', port: 9093 });
    expect(services[am.host]).toBeDefined();
  });

  it("toolwatch's own alerts go to the Alertmanager service; its links point at a published replica", () => {
    for (const s of toolwatches) {
      const { alerts } = toolwatchConfig(s);
      const am = alerts.notifiers.find((n) => n.kind === 'alertmanager');
      expect(hostPort(am!.url!)).toEqual({ host: 'alertmanager', port: 9093 });
      const published = new URL(alerts.publicUrl!);
      expect(published.hostname).toBe('localhost');
      expect(services['toolwatch-1'].ports).toContain(
        `127.0.0.1:${published.port}:${toolwatchConfig('toolwatch-1').server.port}`,
      );
    }
  });

  it('Alertmanager reads the Slack webhook URL from the secret compose mounts', () => {
    const am = readYaml(hostFile('alertmanager', flag('alertmanager', '--config.file')));
    const urlFile: string = am.receivers[0].slack_configs[0].api_url_file;
    expect(services.alertmanager.secrets.map((s: string) => `/run/secrets/${s}`)).toContain(urlFile);
  });

  it('Grafana: the data source is the Prometheus service, the dashboard provider finds toolwatch.json', () => {
    const ds = readYaml(hostFile('grafana', '/etc/grafana/provisioning/datasources/prometheus.yml'));
    expect(hostPort(ds.datasources[0].url)).toEqual({ host: 'prometheus', port: 9090 });
    const provider = readYaml(hostFile('grafana', '/etc/grafana/provisioning/dashboards/toolwatch.yml')).providers[0];
    expect(existsSync(hostFile('grafana', `${provider.options.path}/toolwatch.json`))).toBe(true);
  });

  it('Collector chain: the gateway routes to the relays, each relay forwards to its own replica', () => {
    const gw = readYaml(hostFile('otel-gateway', services['otel-gateway'].command[0].replace(/^--config=/, '')));
    const relays = gw.exporters.loadbalancing.resolver.static.hostnames.map(hostPort);
    expect(relays.map((r: { host: string }) => r.host)).toEqual(['otel-relay-1', 'otel-relay-2']);
    relays.forEach((r: { host: string; port: number }, i: number) => {
      const relay = readYaml(hostFile(r.host, services[r.host].command[0].replace(/^--config=/, '')));
      expect(Number(relay.receivers.otlp.protocols.grpc.endpoint.split(':')[1])).toBe(r.port);
      const target = hostPort(env(r.host).TOOLWATCH_ENDPOINT!);
      expect(target).toEqual({ host: toolwatches[i], port: toolwatchConfig(toolwatches[i]!).server.port });
      // The relay sends the replicas' token.
      expect(relay.exporters['otlphttp/toolwatch'].headers.authorization).toBe('Bearer ${env:TOOLWATCH_TOKEN}');
      expect(env(r.host).TOOLWATCH_TOKEN).toBe(REQUIRED.TOOLWATCH_TOKEN);
    });
    expect(services['otel-gateway'].ports).toEqual(['127.0.0.1:4317:4317', '127.0.0.1:4318:4318']);
  });
});
