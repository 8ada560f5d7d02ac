/**
 * The demo (`toolwatch demo`, src/demo/): run briefly in this process — ten minutes of backfilled
 * traffic and a few seconds live, through the real OpenTelemetry SDK and exporter — then read back
 * through the API and in headless Chromium: every outcome, executions refused (4xx) and down (5xx),
 * the model switch, the definition change, feedback, problems and a firing alert, on the page.
 *
 * With TOOLWATCH_WRITE_SCREENSHOTS=1 the browser part writes the screenshots README and docs/ show
 * (docs/images/page.png, problems.png, problem.png, tool.png) from this run's data.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { parseDemoArgs, runDemoCli } from '../../src/demo/cli.js';
import { DEMO_DEFAULTS, startDemo, type DemoRun } from '../../src/demo/run.js';
import { OUTCOMES } from '../../src/model.js';
import { openPage, recordProblems, SKIP_BROWSER } from '../helpers/browser.js';

const SHOTS = process.env.TOOLWATCH_WRITE_SCREENSHOTS === '1';
const IMAGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/images');

/** Ten minutes keep the test short; the screenshots get the demo's default half hour, so the trends fill out. */
const HISTORY_MS = SHOTS ? DEMO_DEFAULTS.historyMs : 10 * 60_000;
let demo: DemoRun;

beforeAll(async () => {
  demo = await startDemo({ ...DEMO_DEFAULTS, port: 0, historyMs: HISTORY_MS, durationMs: 3000, rate: 4 });
  const stats = await demo.done;
  // One turn a second of history.
  expect(stats.backfilled).toBe(HISTORY_MS / 1000);
  expect(stats.turns).toBeGreaterThan(600);
}, 120_000);

afterAll(async () => {
  await demo?.stop();
});

const get = async <T>(url: string): Promise<T> => {
  const res = await fetch(`${demo.url}${url}`);
  expect(res.status, url).toBe(200);
  return (await res.json()) as T;
};

interface Stats {
  tools: {
    service: string;
    tool: string;
    counts: Record<string, number>;
    executions?: { byStatus: Record<string, number> };
  }[];
}

describe('the demo', () => {
  it('sends every outcome, executions refused and down, from three services and several models', async () => {
    const { tools } = await get<Stats>('/api/stats?window=1h');
    expect(new Set(tools.map((t) => t.service))).toEqual(new Set(['support-bot', 'shop-agent', 'research-agent']));
    for (const o of OUTCOMES)
      expect(
        tools.reduce((n, t) => n + t.counts[o]!, 0),
        o,
      ).toBeGreaterThan(0);
    const execs = (s: string) => tools.reduce((n, t) => n + (t.executions?.byStatus[s] ?? 0), 0);
    expect(execs('client_error')).toBeGreaterThan(0);
    expect(execs('server_error')).toBeGreaterThan(0);
    const byModel = await get<{ models: { model: string }[] }>('/api/stats?window=1h&by=model');
    expect(new Set(byModel.models.map((m) => m.model))).toEqual(
      new Set(['gpt-4.1', 'gpt-4.1-mini', 'claude-sonnet-4-5', 'gemini-2.5-flash']),
    );
  });

  it('switches a model, changes a definition, and gets feedback', async () => {
    const { changes } = await get<{
      changes: { service: string; kind: string; tool?: string; from: string; to: string }[];
    }>('/api/changes?since=1h');
    expect(changes).toContainEqual(
      expect.objectContaining({ service: 'support-bot', kind: 'model', from: 'gpt-4.1', to: 'gpt-4.1-mini' }),
    );
    expect(changes.filter((c) => c.kind === 'tool_definition')).toEqual([
      expect.objectContaining({ service: 'shop-agent', tool: 'refund_order' }),
    ]);
    const tool = await get<{ versions: { changes: { text: string }[] | null }[] }>(
      '/api/tools/shop-agent/refund_order',
    );
    expect(tool.versions).toHaveLength(2);
    expect(tool.versions[1]!.changes!.map((c) => c.text)).toContain('`amount` became required');
    const metrics = await (await fetch(`${demo.url}/metrics`)).text();
    expect(metrics).toMatch(/^toolwatch_feedback_total\{[^}]*value="negative"[^}]*\} [1-9]/m);
  });

  it('has problems of every outcome and a firing alert', async () => {
    const { problems } = await get<{ problems: { outcome: string; tool: string; parts: string[] }[] }>(
      '/api/problems?since=1h',
    );
    for (const o of ['InvalidJson', 'UnknownName', 'SchemaMismatch'])
      expect(
        problems.some((p) => p.outcome === o),
        o,
      ).toBe(true);
    expect(problems).toContainEqual(expect.objectContaining({ tool: 'refund_order', parts: ['required /amount'] }));
    expect(problems).toContainEqual(expect.objectContaining({ tool: 'web_search', parts: ['truncated'] }));
    const { alerts } = await get<{ alerts: { state: string }[] }>('/api/alerts');
    expect(alerts.some((a) => a.state === 'firing')).toBe(true);
  });

  it('refuses bad flags with the usage line, exit 2', async () => {
    expect(parseDemoArgs(['--duration', '20s', '--port', '0', '--exit'])).toMatchObject({
      ok: true,
      exit: true,
      options: { durationMs: 20_000, port: 0 },
    });
    let err = '';
    const code = await runDemoCli(['--duration', 'soon', '--rate', '-1', '--bogus', 'x'], {
      out: () => undefined,
      err: (s) => (err += s),
    });
    expect(code).toBe(2);
    expect(err).toContain('--duration: not a duration');
    expect(err).toContain('--rate: an integer from 0 to 200');
    expect(err).toContain('unknown option --bogus');
    expect(err).toContain('usage: toolwatch demo [--duration 3m]');
  });
});

describe.skipIf(SKIP_BROWSER)('the demo in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    ({ browser, page } = await openPage());
    await recordProblems(page, problems);
    if (SHOTS) mkdirSync(IMAGES, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  const shot = async (name: string, opts: { fullPage?: boolean; selector?: string; height?: number } = {}) => {
    if (!SHOTS) return;
    const file = path.join(IMAGES, name);
    if (opts.height) await page.setViewportSize({ width: 1280, height: opts.height });
    if (opts.selector) await page.locator(opts.selector).screenshot({ path: file });
    else await page.screenshot({ path: file, fullPage: opts.fullPage ?? false });
    if (opts.height) await page.setViewportSize({ width: 1280, height: 900 });
  };

  it('shows a populated page: problems at the top, every outcome, alerts firing, change markers', async () => {
    await page.goto(`${demo.url}/`);
    expect(await page.locator('#problems tr').count()).toBeGreaterThanOrEqual(5);
    expect(await page.locator('#alerts .badge.s-firing').count()).toBeGreaterThan(0);
    // Each outcome column of the tools table has a non-zero cell somewhere.
    const columns = (await page.evaluate(
      `Array.from(document.querySelectorAll('#tools tr')).map((tr) => Array.from(tr.cells).slice(2, 7).map((c) => Number(c.innerText.replace(/,/g, ''))))`,
    )) as number[][];
    for (let i = 0; i < OUTCOMES.length; i++)
      expect(
        columns.some((r) => r[i]! > 0),
        OUTCOMES[i],
      ).toBe(true);
    expect(await page.locator('svg[data-chart="service"] g.change.k-tool_definition').count()).toBe(1);
    expect(await page.locator('svg[data-chart="models"] g.marker').count()).toBeGreaterThan(0);
    await shot('page.png', { height: 1700 });
    await shot('problems.png', { selector: '#problems-section' });
    expect(problems).toEqual([]);
  });

  it("opens the definition change's problem and the tool's view", async () => {
    await page.goto(`${demo.url}/`);
    await Promise.all([
      page.waitForURL(/\/problems\//),
      page.click('#problems tr:has-text("amount is missing") td.sig > a'),
    ]);
    expect(await page.locator('#changes-before li[data-change-kind="tool_definition"]').count()).toBe(1);
    expect(await page.locator('#examples mark.hl').count()).toBeGreaterThan(0);
    await shot('problem.png', { fullPage: true });
    await page.goto(`${demo.url}/tools/shop-agent/refund_order`);
    expect(await page.locator('#versions > tr').count()).toBe(2);
    await shot('tool.png', { fullPage: true });
    expect(problems).toEqual([]);
  });
});
