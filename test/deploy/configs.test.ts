/**
 * Every file under deploy/ parses; the Prometheus and Alertmanager configs pass their own checkers
 * (promtool, amtool from the Debian packages); the Collector configs are wired consistently (no
 * Collector binary here: their structure is checked, the rest is kept right by reasoning).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { deploy, filesUnder, readYaml, readYamlDocs, root } from './files.js';
import { tool } from './tools.js';

describe('deploy/ files parse', () => {
  const files = filesUnder(deploy).map((f) => path.relative(root, f));
  it.each(files.filter((f) => /\.ya?ml$/.test(f)))('%s is YAML', (f) => {
    const docs = readYamlDocs(path.join(root, f));
    expect(docs.length).toBeGreaterThan(0);
    for (const d of docs) expect(typeof d, f).toBe('object');
  });
  it.each(files.filter((f) => f.endsWith('.json')))('%s is JSON', (f) => {
    expect(() => JSON.parse(readFileSync(path.join(root, f), 'utf8'))).not.toThrow();
  });
});

describe('Prometheus and Alertmanager configs', () => {
  it('promtool check config deploy/prometheus/prometheus.yml (and the rule file it loads)', () => {
    // promtool checks that the scrape job's credentials_file exists: the secret compose mounts is
    // not on this machine, so the file is checked as a copy beside the rules with only that path
    // pointing at a token file made here.
    const tmp = mkdtempSync(path.join(tmpdir(), 'toolwatch-promtool-'));
    try {
      const prom = readYaml(path.join(deploy, 'prometheus/prometheus.yml'));
      const job = prom.scrape_configs.find((j: { job_name: string }) => j.job_name === 'toolwatch');
      expect(job.authorization.credentials_file).toBe('/run/secrets/toolwatch_token');
      writeFileSync(path.join(tmp, 'toolwatch_token'), 'a-token-for-promtool-0123456789\n');
      job.authorization.credentials_file = path.join(tmp, 'toolwatch_token');
      writeFileSync(path.join(tmp, 'prometheus.yml'), stringify(prom));
      for (const f of ['toolwatch-rules.yml', 'toolwatch-slo-rules.yml'])
        copyFileSync(path.join(deploy, 'prometheus', f), path.join(tmp, f));
      const r = tool('promtool', ['check', 'config', 'prometheus.yml'], { cwd: tmp });
      expect(r.out).toContain('SUCCESS: prometheus.yml is valid prometheus config file syntax');
      expect(r.out).toContain('SUCCESS: 10 rules found');
      expect(r.out).toContain('SUCCESS: 9 rules found');
      expect(r.status, r.out).toBe(0);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('amtool check-config deploy/alertmanager/alertmanager.yml', () => {
    const r = tool('amtool', ['check-config', path.join(deploy, 'alertmanager/alertmanager.yml')]);
    expect(r.out).toContain('SUCCESS');
    expect(r.status, r.out).toBe(0);
  });

  it('the checkers do reject a broken config (the checks above can fail)', () => {
    const badScrape = 'scrape_configs: [{job_name: x, scrape_interval: often}]\n';
    const promtool = tool('promtool', ['check', 'config', '/dev/stdin'], { input: badScrape });
    expect(promtool.status).not.toBe(0);
    const amtool = tool('amtool', ['check-config', '/dev/stdin'], {
      input: 'route: {receiver: nobody}\nreceivers: []\n',
    });
    expect(amtool.status).not.toBe(0);
  });

  it('Alertmanager routes by alert name and service to a Slack receiver whose URL is a file, resolved alerts included', () => {
    const am = readYaml(path.join(deploy, 'alertmanager/alertmanager.yml'));
    expect(am.route.group_by).toEqual(['alertname', 'service']);
    const receiver = am.receivers.find((r: { name: string }) => r.name === am.route.receiver);
    expect(receiver.slack_configs[0]).toMatchObject({
      api_url_file: expect.stringMatching(/^\//),
      send_resolved: true,
    });
    expect(receiver.slack_configs[0].api_url).toBeUndefined();
  });
});

describe('Collector configs', () => {
  const load = (name: string) => readYaml(path.join(deploy, 'otel-collector', name));
  const components = (cfg: any, kind: 'receivers' | 'processors' | 'exporters') => Object.keys(cfg[kind] ?? {});

  it.each(['fanout.yaml', 'loadbalancing.yaml', 'relay.yaml'])(
    '%s: every pipeline names components the file defines',
    (name) => {
      const cfg = load(name);
      const pipelines = Object.entries(cfg.service.pipelines) as [string, Record<string, string[]>][];
      expect(pipelines.map(([id]) => id)).toEqual(['traces']); // toolwatch takes traces only
      for (const [, p] of pipelines) {
        for (const kind of ['receivers', 'processors', 'exporters'] as const) {
          for (const id of p[kind] ?? []) expect(components(cfg, kind), `${name}: ${kind} ${id}`).toContain(id);
        }
      }
      // Inside a container the OTLP receiver must listen beyond localhost (its default since v0.104).
      for (const proto of Object.values(cfg.receivers.otlp.protocols) as { endpoint: string }[]) {
        expect(proto.endpoint).toMatch(/^0\.0\.0\.0:/);
      }
    },
  );

  it('fan-out: the existing backend and toolwatch both get every trace, over OTLP/HTTP', () => {
    const cfg = load('fanout.yaml');
    expect(cfg.service.pipelines.traces.exporters).toEqual(['otlphttp/backend', 'otlphttp/toolwatch']);
    expect(cfg.exporters['otlphttp/toolwatch'].endpoint).toBe('${env:TOOLWATCH_ENDPOINT}');
  });

  it('load balancing: by trace id, over OTLP/gRPC to relays that forward OTLP/HTTP to one replica each', () => {
    const lb = load('loadbalancing.yaml');
    expect(lb.exporters.loadbalancing.routing_key).toBe('traceID');
    expect(Object.keys(lb.exporters.loadbalancing.protocol)).toEqual(['otlp']);
    const relay = load('relay.yaml');
    const relayPort = Number(relay.receivers.otlp.protocols.grpc.endpoint.split(':')[1]);
    for (const h of lb.exporters.loadbalancing.resolver.static.hostnames)
      expect(Number(h.split(':')[1])).toBe(relayPort);
    expect(Object.keys(relay.receivers.otlp.protocols)).toEqual(['grpc']);
    expect(relay.exporters['otlphttp/toolwatch'].endpoint).toBe('${env:TOOLWATCH_ENDPOINT}');
  });
});
