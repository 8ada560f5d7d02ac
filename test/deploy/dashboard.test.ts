/**
 * deploy/grafana/toolwatch.json: every PromQL expression (panel targets and variable queries)
 * parses — checked by promtool on a generated rules file — and every metric it selects is one
 * toolwatch exports (read from a real app's /metrics) or one Prometheus makes itself (ALERTS).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { exposedSeriesNames, metricNames, substituteGrafanaVariables } from './promql.js';
import { tool } from './tools.js';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy/grafana/toolwatch.json');

interface Target {
  expr: string;
  refId: string;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string | { query: string } }[] };
}

const dashboard = JSON.parse(readFileSync(file, 'utf8')) as Dashboard;
const allPanels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const queries: { where: string; expr: string }[] = [
  ...allPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}" ${t.refId}`, expr: t.expr }))),
  ...dashboard.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => {
      const q = typeof v.query === 'string' ? v.query : v.query.query;
      // label_values(SELECTOR, label) is Grafana's, not PromQL: its selector is.
      const selector = /^label_values\((.*),\s*\w+\)$/s.exec(q)?.[1] ?? q;
      return { where: `variable $${v.name}`, expr: selector };
    }),
];

describe('PromQL helpers', () => {
  it.each([
    ['sum by (service) (rate(calls_total{outcome!="unvalidated", tool="x_total"}[5m]))', ['calls_total']],
    ['histogram_quantile(0.99, sum by (le) (rate(a_bucket[1m]))) > 1e3', ['a_bucket']],
    ['a / on (service) group_left(model) b unless c offset 5m and bool_metric', ['a', 'b', 'bool_metric', 'c']],
    ['topk(15, sum without (instance) (increase(x:y:z[1h])))', ['x:y:z']],
    ['max by (rule) (ALERTS{alertname=~"Toolwatch.*"})', ['ALERTS']],
  ])('%s', (expr, names) => {
    expect(metricNames(expr)).toEqual(names);
  });

  it('replaces Grafana variables', () => {
    expect(
      substituteGrafanaVariables('rate(m{service=~"$service", model=~"${model}"}[$__rate_interval]) + x[$__range]'),
    ).toBe('rate(m{service=~".*", model=~".*"}[5m]) + x[1h]');
  });
});

describe('Grafana dashboard', () => {
  let tw: Harness;
  let exported: Set<string>;
  let dir: string;
  beforeAll(async () => {
    tw = await startToolwatch({ listen: false });
    exported = exposedSeriesNames((await tw.app.inject('/metrics')).body);
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-dashboard-'));
  });
  afterAll(async () => {
    await tw?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('has panels for everything an operator looks at, each with a query on the chosen data source', () => {
    expect(dashboard.uid).toBe('toolwatch');
    expect(queries.length).toBeGreaterThan(20);
    const ids = allPanels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of allPanels) {
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
      if (p.type === 'row') continue;
      expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
    }
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['datasource', 'service', 'model']);
  });

  it('every expression parses (promtool check rules on one recording rule per expression)', () => {
    const rules = {
      groups: [
        {
          name: 'dashboard',
          rules: queries.map((q, i) => ({ record: `dashboard:query_${i}`, expr: substituteGrafanaVariables(q.expr) })),
        },
      ],
    };
    writeFileSync(path.join(dir, 'dashboard-rules.yml'), stringify(rules));
    const r = tool('promtool', ['check', 'rules', 'dashboard-rules.yml'], { cwd: dir });
    expect(r.out).toContain(`SUCCESS: ${queries.length} rules found`);
    expect(r.status, r.out).toBe(0);
  });

  it('every metric it selects is exported by toolwatch (or is Prometheus’ own ALERTS)', () => {
    const prometheusOwn = new Set(['ALERTS']);
    expect(exported.has('toolwatch_tool_calls_total')).toBe(true);
    const unknown: string[] = [];
    for (const q of queries) {
      const names = metricNames(substituteGrafanaVariables(q.expr));
      expect(names.length, q.where).toBeGreaterThan(0);
      for (const n of names) if (!exported.has(n) && !prometheusOwn.has(n)) unknown.push(`${q.where}: ${n}`);
    }
    expect(unknown).toEqual([]);
  });
});
