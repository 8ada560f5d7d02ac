/**
 * deploy/kubernetes, checked without a cluster: the generated manifests are in sync with their
 * sources, the Deployment is locked down (non-root, read-only root filesystem, resources) and
 * everything it refers to — Secret keys, ConfigMaps, port names, probe and scrape paths — exists,
 * the paths answering on a real toolwatch.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { deploy, hostPort, imageEnv, readYaml, readYamlDocs, root } from './files.js';
import { tool } from './tools.js';

const dir = path.join(deploy, 'kubernetes');
const kustomization = readYaml(path.join(dir, 'kustomization.yaml'));
const resources = (kustomization.resources as string[]).flatMap((f) => readYamlDocs(path.join(dir, f)));
const find = (kind: string, name: string) => {
  const r = resources.find((x) => x.kind === kind && x.metadata.name === name);
  if (!r) throw new Error(`no ${kind} ${name} in kustomization.yaml's resources`);
  return r;
};
const deployment = find('Deployment', 'toolwatch');
const pod = deployment.spec.template.spec;
const container = (name: string) => pod.containers.find((c: { name: string }) => c.name === name);
const toolwatch = container('toolwatch');
const relay = container('otel-relay');
const secretExample = readYaml(path.join(dir, 'secret.example.yaml'));
const envValue = (c: any, name: string): string | undefined =>
  c.env.find((e: { name: string }) => e.name === name)?.value;
const portNumber = (c: any, name: string): number =>
  c.ports.find((p: { name: string }) => p.name === name)?.containerPort;

/** The file a ConfigMap-backed mount shows at `file` inside a container, as text. */
function mountedFile(c: any, file: string): string {
  const mount = c.volumeMounts.find((m: { mountPath: string }) => file.startsWith(`${m.mountPath}/`));
  expect(mount, `${c.name}: ${file} is not under a mount`).toBeDefined();
  const volume = pod.volumes.find((v: { name: string }) => v.name === mount.name);
  const text = find('ConfigMap', volume.configMap.name).data[file.slice(mount.mountPath.length + 1)];
  expect(typeof text, `${c.name}: ${file}`).toBe('string');
  return text;
}

/** toolwatch's config loaded the way the container's process does (image env + Deployment env + the ConfigMap). */
function toolwatchConfig() {
  const tmp = mkdtempSync(path.join(tmpdir(), 'toolwatch-k8s-'));
  try {
    const file = path.join(tmp, 'toolwatch.yaml');
    writeFileSync(file, mountedFile(toolwatch, envValue(toolwatch, 'TOOLWATCH_CONFIG')!));
    const env: Record<string, string> = { ...imageEnv() };
    for (const e of toolwatch.env) {
      if (e.value !== undefined && e.name !== 'TOOLWATCH_CONFIG') env[e.name] = e.value;
      // From the Secret, as the example fills it (optional keys it leaves out stay unset).
      const ref = e.valueFrom?.secretKeyRef;
      if (ref && secretExample.stringData[ref.key] !== undefined) env[e.name] = secretExample.stringData[ref.key];
    }
    delete env.TOOLWATCH_CONFIG;
    return loadConfig({ argv: ['--config', file], env, cwd: tmp });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The ConfigMap's toolwatch.yaml, as data. */
function toolwatchConfigFile(): any {
  return parse(mountedFile(toolwatch, envValue(toolwatch, 'TOOLWATCH_CONFIG')!));
}

describe('Kubernetes manifests', () => {
  it('kustomization.yaml lists every manifest here (secret.example.yaml is only an example)', () => {
    const manifests = readdirSync(dir).filter(
      (f) => f.endsWith('.yaml') && f !== 'kustomization.yaml' && f !== 'secret.example.yaml',
    );
    expect([...kustomization.resources].sort()).toEqual(manifests.sort());
  });

  it('generated manifests are in sync with their sources (npm run deploy:generate --check)', () => {
    const r = spawnSync(process.execPath, [path.join(dir, 'generate.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const rules = parse(readFileSync(path.join(deploy, 'prometheus/toolwatch-rules.yml'), 'utf8'));
    expect(find('PrometheusRule', 'toolwatch').spec.groups).toEqual(rules.groups);
    const slo = parse(readFileSync(path.join(deploy, 'prometheus/toolwatch-slo-rules.yml'), 'utf8'));
    expect(find('PrometheusRule', 'toolwatch-slo').spec.groups).toEqual(slo.groups);
    const relayText = readFileSync(path.join(deploy, 'otel-collector/relay.yaml'), 'utf8');
    expect(find('ConfigMap', 'toolwatch-otel-relay').data['relay.yaml']).toBe(relayText);
  });

  it('the PrometheusRule passes promtool check rules', () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'toolwatch-k8s-rules-'));
    try {
      writeFileSync(
        path.join(tmp, 'rules.yml'),
        stringify({ groups: find('PrometheusRule', 'toolwatch').spec.groups }),
      );
      const r = tool('promtool', ['check', 'rules', 'rules.yml'], { cwd: tmp });
      expect(r.out).toContain('SUCCESS: 10 rules found');
      expect(r.status, r.out).toBe(0);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('runs non-root with a read-only root filesystem, /tmp an emptyDir, resources set, images pinned', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: expect.any(Number) });
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    for (const c of pod.containers) {
      expect(c.securityContext, c.name).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      expect(c.resources.requests, c.name).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
      expect(c.resources.limits.memory, c.name).toEqual(expect.any(String));
      expect(c.image, c.name).toMatch(/:v?\d+\.\d+\.\d+$/);
    }
    const tmp = toolwatch.volumeMounts.find((m: { mountPath: string }) => m.mountPath === '/tmp');
    expect(pod.volumes.find((v: { name: string }) => v.name === tmp.name).emptyDir).toBeDefined();
    // The image's default SQLite path would need a writable volume: this Deployment uses PostgreSQL.
    expect(toolwatchConfig().database.kind).toBe('postgres');
  });

  it('toolwatch gets its API token from the Secret (not the escape hatch); the relay sends it, the ServiceMonitor scrapes with it', () => {
    const cfg = toolwatchConfig();
    expect(cfg.auth.allowUnauthenticated).toBe(false);
    expect(
      cfg.auth.tokens.map((t) => [t.source.kind, t.source.kind === 'env' ? t.source.variable : '', t.scopes]),
    ).toEqual([['env', 'TOOLWATCH_TOKEN', ['ingest', 'read', 'metrics', 'admin']]]);
    const ref = (c: any, name: string) => c.env.find((e: { name: string }) => e.name === name)?.valueFrom?.secretKeyRef;
    expect(ref(toolwatch, 'TOOLWATCH_TOKEN')).toEqual({ name: 'toolwatch', key: 'api-token' });
    expect(ref(relay, 'TOOLWATCH_TOKEN')).toEqual({ name: 'toolwatch', key: 'api-token' });
    const relayCfg = parse(mountedFile(relay, relay.args[0].replace(/^--config=/, '')));
    expect(relayCfg.exporters['otlphttp/toolwatch'].headers.authorization).toBe('Bearer ${env:TOOLWATCH_TOKEN}');
    expect(find('ServiceMonitor', 'toolwatch').spec.endpoints[0].authorization).toEqual({
      type: 'Bearer',
      credentials: { name: 'toolwatch', key: 'api-token' },
    });
  });

  it('Secret references: required keys exist in the example Secret, optional ones are marked optional', () => {
    const refs = pod.containers.flatMap((c: any) =>
      (c.env ?? []).filter((e: any) => e.valueFrom?.secretKeyRef).map((e: any) => e.valueFrom.secretKeyRef),
    );
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref.name).toBe(secretExample.metadata.name);
      if (!ref.optional) expect(Object.keys(secretExample.stringData)).toContain(ref.key);
    }
  });

  it('toolwatch listens on 0.0.0.0 at the container port the probes, Services and the relay use', () => {
    const cfg = toolwatchConfig();
    expect(cfg.server.host).toBe('0.0.0.0');
    expect(portNumber(toolwatch, 'http')).toBe(cfg.server.port);
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'])
      expect(toolwatch[probe].httpGet.port, probe).toBe('http');
    expect(toolwatch.startupProbe.httpGet.path).toBe('/healthz');
    expect(toolwatch.livenessProbe.httpGet.path).toBe('/healthz');
    expect(toolwatch.readinessProbe.httpGet.path).toBe('/readyz');
    // Shutdown fits in the pod's grace period.
    expect(cfg.server.shutdownGraceMs).toBeLessThan(pod.terminationGracePeriodSeconds * 1000);
    // The relay sidecar forwards to this port, and receives where its Service port points.
    expect(hostPort(envValue(relay, 'TOOLWATCH_ENDPOINT')!)).toEqual({ host: '127.0.0.1', port: cfg.server.port });
    const relayCfg = parse(mountedFile(relay, relay.args[0].replace(/^--config=/, '')));
    expect(Number(relayCfg.receivers.otlp.protocols.grpc.endpoint.split(':')[1])).toBe(portNumber(relay, 'otlp-grpc'));
  });

  it('Services select the pods and target named container ports; the ServiceMonitor scrapes the toolwatch Service', () => {
    const podLabels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual(podLabels);
    const svcs = resources.filter((r) => r.kind === 'Service');
    expect(svcs.map((s) => s.metadata.name)).toEqual(['toolwatch', 'toolwatch-relay']);
    for (const s of svcs) {
      expect(podLabels).toMatchObject(s.spec.selector);
      for (const p of s.spec.ports) {
        expect(
          pod.containers.some((c: any) => portNumber(c, p.targetPort)),
          `${s.metadata.name} ${p.targetPort}`,
        ).toBe(true);
      }
    }
    expect(find('Service', 'toolwatch-relay').spec.clusterIP).toBe('None'); // one DNS record per pod, for the loadbalancing exporter
    const sm = find('ServiceMonitor', 'toolwatch');
    const scraped = svcs.filter((s) =>
      Object.entries(sm.spec.selector.matchLabels).every(([k, v]) => s.metadata.labels[k] === v),
    );
    expect(scraped.map((s) => s.metadata.name)).toEqual(['toolwatch']);
    for (const e of sm.spec.endpoints)
      expect(scraped[0].spec.ports.map((p: { name: string }) => p.name)).toContain(e.port);
  });

  describe('the paths it probes and scrapes answer on a real toolwatch', () => {
    let tw: Harness;
    const token = secretExample.stringData['api-token'];
    beforeAll(async () => {
      // With the Deployment's token: probes carry none, the ServiceMonitor carries the token.
      tw = await startToolwatch({
        listen: false,
        env: { TOOLWATCH_TOKEN: token },
        config: { auth: toolwatchConfigFile().auth },
      });
    });
    afterAll(async () => {
      await tw?.close();
    });
    it.each([
      ['startup', () => toolwatch.startupProbe.httpGet.path],
      ['liveness', () => toolwatch.livenessProbe.httpGet.path],
      ['readiness', () => toolwatch.readinessProbe.httpGet.path],
      ['ServiceMonitor', () => find('ServiceMonitor', 'toolwatch').spec.endpoints[0].path],
    ])('%s', async (what, p) => {
      const headers = what === 'ServiceMonitor' ? { authorization: `Bearer ${token}` } : {};
      const res = await tw.app.inject({ url: p(), headers });
      expect(res.statusCode).toBe(200);
      if (p() === '/metrics') expect(res.body).toContain('# TYPE toolwatch_tool_calls_total counter');
    });
    it('the ServiceMonitor path without the token is refused', async () => {
      expect((await tw.app.inject(find('ServiceMonitor', 'toolwatch').spec.endpoints[0].path)).statusCode).toBe(401);
    });
  });
});
