/**
 * deploy/prometheus/toolwatch-rules.yml and toolwatch-slo-rules.yml (burn rates, regressed problems)
 * are valid and do what their unit tests say, checked by
 * Prometheus' own promtool (Debian package `prometheus`; .ci/run installs it). Without promtool
 * this fails rather than skips: an untested rule file is not shipped.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BURN_WINDOWS } from '../../src/alerts/kinds/error-budget-burn.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy/prometheus');

function promtool(...args: string[]): { status: number | null; out: string } {
  const res = spawnSync('promtool', args, { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  if (res.error) throw new Error(`promtool is needed for this test (apt-get install prometheus): ${res.error.message}`);
  return { status: res.status, out: `${res.stdout}${res.stderr}` };
}

describe('Prometheus alerting rules', () => {
  it('promtool check rules', () => {
    const r = promtool('check', 'rules', 'toolwatch-rules.yml');
    expect(r.out).toContain('SUCCESS: 10 rules found');
    expect(r.status).toBe(0);
  });

  it('promtool test rules', () => {
    const r = promtool('test', 'rules', 'toolwatch-rules.test.yml');
    expect(r.out).toContain('SUCCESS');
    expect(r.status, r.out).toBe(0);
  });
});

describe('Prometheus SLO rules (error budget burn, regressed problems)', () => {
  it('promtool check rules', () => {
    const r = promtool('check', 'rules', 'toolwatch-slo-rules.yml');
    expect(r.out).toContain('SUCCESS: 9 rules found');
    expect(r.status).toBe(0);
  });

  it('promtool test rules', () => {
    const r = promtool('test', 'rules', 'toolwatch-slo-rules.test.yml');
    expect(r.out).toContain('SUCCESS');
    expect(r.status, r.out).toBe(0);
  });

  it('the same burn-rate windows and rates as the rule kind error_budget_burn, the same errors as error_rate', () => {
    const text = readFileSync(path.join(dir, 'toolwatch-slo-rules.yml'), 'utf8');
    for (const w of DEFAULT_BURN_WINDOWS) {
      const long = `ratio_rate${w.long} >= (${w.burn_rate} * 0.01)`;
      const short = `ratio_rate${w.short} >= (${w.burn_rate} * 0.01)`;
      expect(text).toContain(long);
      expect(text).toContain(short);
    }
    expect(text).toContain('outcome=~"InvalidJson|UnknownName|SchemaMismatch"');
  });
});
