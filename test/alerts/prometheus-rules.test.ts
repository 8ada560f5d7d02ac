/**
 * deploy/prometheus/toolwatch-rules.yml is valid and does what its unit tests say, checked by
 * Prometheus' own promtool (Debian package `prometheus`; .ci/run installs it). Without promtool
 * this fails rather than skips: an untested rule file is not shipped.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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
