#!/usr/bin/env node
// Writes the Kubernetes manifests that copy another deploy/ file, so each lives in one place:
//   prometheusrule.yaml       ← deploy/prometheus/toolwatch-rules.yml (spec.groups, unchanged)
//   prometheusrule-slo.yaml   ← deploy/prometheus/toolwatch-slo-rules.yml (likewise)
//   otel-relay-configmap.yaml ← deploy/otel-collector/relay.yaml (verbatim)
// `npm run deploy:generate` rewrites them; `--check` only reports (exit 1) when one is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));
const deploy = path.dirname(here);
const header = (source) => `# Generated from deploy/${source} by \`npm run deploy:generate\`; do not edit.\n`;
const labels = { 'app.kubernetes.io/name': 'toolwatch' };

export function prometheusRule(rulesText, name = 'toolwatch', source = 'prometheus/toolwatch-rules.yml') {
  const { groups } = parse(rulesText);
  const doc = { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { name, labels }, spec: { groups } };
  return header(source) + stringify(doc, { lineWidth: 0 });
}

export function relayConfigMap(relayText) {
  const doc = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'toolwatch-otel-relay', labels }, data: { 'relay.yaml': relayText } };
  return header('otel-collector/relay.yaml') + stringify(doc, { lineWidth: 0 });
}

const outputs = [
  ['prometheusrule.yaml', () => prometheusRule(readFileSync(path.join(deploy, 'prometheus/toolwatch-rules.yml'), 'utf8'))],
  [
    'prometheusrule-slo.yaml',
    () =>
      prometheusRule(
        readFileSync(path.join(deploy, 'prometheus/toolwatch-slo-rules.yml'), 'utf8'),
        'toolwatch-slo',
        'prometheus/toolwatch-slo-rules.yml',
      ),
  ],
  ['otel-relay-configmap.yaml', () => relayConfigMap(readFileSync(path.join(deploy, 'otel-collector/relay.yaml'), 'utf8'))],
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [name, render] of outputs) {
    const file = path.join(here, name);
    const want = render();
    let have = '';
    try {
      have = readFileSync(file, 'utf8');
    } catch {
      // missing: stale
    }
    if (have === want) continue;
    if (check) {
      stale++;
      process.stderr.write(`deploy/kubernetes/${name} is out of date: run npm run deploy:generate\n`);
    } else {
      writeFileSync(file, want);
      process.stdout.write(`wrote deploy/kubernetes/${name}\n`);
    }
  }
  process.exitCode = stale ? 1 : 0;
}
