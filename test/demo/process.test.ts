/**
 * The demo as a real process (test/demo/entry.ts: what `toolwatch demo` runs, bundled — cli.ts
 * itself cannot be, see buildMain): it prints the page's address, serves a populated page while its
 * agents send spans, exits 0 after `--duration` with `--exit`, and stops cleanly on SIGINT while
 * serving on. That `toolwatch demo` reaches it: the last test, through runCli.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { buildMain, startMain, type BuiltMain } from '../helpers/main-process.js';

let built: BuiltMain;
let dir: string;

beforeAll(async () => {
  built = await buildMain('test/demo/entry.ts');
  dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-demo-process-'));
}, 60_000);
afterAll(() => {
  built?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('toolwatch demo (a real process)', () => {
  it('serves a populated page, then exits 0 after --duration with --exit', async () => {
    const p = startMain(built.file, {
      cwd: dir,
      env: {},
      args: ['--duration', '4s', '--history', '2m', '--port', '0', '--exit'],
    });
    try {
      const [, url] = await p.waitFor(/open (http:\/\/127\.0\.0\.1:\d+)\//, 60_000);
      await p.waitFor(/backfilled 120 agent turns/, 60_000);
      const stats = (await (await fetch(`${url}/api/stats?window=1h`)).json()) as { tools: { service: string }[] };
      expect(new Set(stats.tools.map((t) => t.service))).toEqual(
        new Set(['support-bot', 'shop-agent', 'research-agent']),
      );
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('id="problems"');
      expect(await p.exited).toBe(0);
      expect(p.output()).toMatch(/sent \d+ agent turns \(120 backfilled\)\n/);
    } finally {
      await p.stop();
    }
  }, 120_000);

  it('stops on SIGINT while it serves on, exit 0', async () => {
    const p = startMain(built.file, {
      cwd: dir,
      env: {},
      args: ['--duration', '1s', '--history', '1m', '--port', '0'],
    });
    try {
      await p.waitFor(/still serving http:\/\/127\.0\.0\.1:\d+\/ — Ctrl-C to stop/, 60_000);
      p.child.kill('SIGINT');
      expect(await p.exited).toBe(0);
    } finally {
      await p.stop();
    }
  }, 120_000);

  it('is what `toolwatch demo` runs (a bad flag: its usage, exit 2)', async () => {
    let err = '';
    const code = await runCli(['demo', '--port', 'x'], process.env, { out: () => undefined, err: (t) => (err += t) });
    expect(code).toBe(2);
    expect(err).toContain('toolwatch demo: --port: an integer from 0 to 65535');
  });
});
