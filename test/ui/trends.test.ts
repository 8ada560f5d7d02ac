/**
 * The page's trends in headless Chromium: an hour of traffic spread over every minute (a service
 * whose model changes and whose errors bump, a service whose tool choice drifts against a drift
 * rule's baseline), drawn as inline SVG. Every number a chart draws is read back from the SVG's
 * data attributes and compared with GET /api/stats; screenshots in light and dark mode are written
 * to the temp dir (their paths printed) for a person to look at.
 */
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolStats } from '../../src/queries/stats.js';
import { minuteOf } from '../../src/store/store.js';
import { openPage, recordProblems, SKIP_BROWSER } from '../helpers/browser.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { chatResourceSpans } from '../helpers/otlp-json.js';

const NOW = Date.now();
const M = minuteOf(NOW);
const MIN = 60_000;
/** The minute the checkout service switched from gpt-4o to gpt-4.1. */
const SWITCH = M - 24 * MIN;

const schema = (prop: string) => ({
  type: 'object',
  properties: { [prop]: { type: 'string' } },
  required: [prop],
  additionalProperties: false,
});
const DEFS = JSON.stringify([
  { type: 'function', name: 'lookup_order', parameters: schema('id') },
  { type: 'function', name: 'search', parameters: schema('q') },
  { type: 'function', name: 'get_weather', parameters: schema('city') },
  { type: 'function', name: 'refund', parameters: schema('order') },
  { type: 'function', name: 'notes' }, // no schema: unvalidated
]);

let seq = 0;
function call(service: string, minute: number, name: string, args: string, model: string) {
  const i = ++seq;
  return chatResourceSpans({
    service,
    traceId: createHash('sha256').update(`trend ${i}`).digest('hex').slice(0, 32),
    spanId: i.toString(16).padStart(16, '0'),
    definitions: DEFS,
    call: { id: `c${i}`, name, arguments: args },
    endMs: minute + 20_000,
    model,
  });
}
const times = <T>(n: number, f: () => T): T[] => Array.from({ length: n }, f);

/** An hour of traffic, minute by minute (i minutes ago). */
function traffic() {
  const spans = [];
  for (let i = 0; i < 60; i++) {
    const m = M - i * MIN;
    const model = m >= SWITCH ? 'gpt-4.1' : 'gpt-4o';
    spans.push(
      ...times(3, () => call('checkout', m, 'lookup_order', '{"id":"A1"}', model)),
      call('checkout', m, 'search', '{"q":"x"}', model),
    );
    if (i >= 10 && i < 20) spans.push(...times(2, () => call('checkout', m, 'lookup_order', '{"id":7}', model))); // an error bump
    if (i >= 15) {
      // support's baseline: mostly get_weather
      spans.push(...times(3, () => call('support', m, 'get_weather', '{"city":"Oslo"}', 'claude-sonnet')));
      if (i % 3 === 0) spans.push(call('support', m, 'refund', '{"order":"o1"}', 'claude-sonnet'));
    } else {
      // the last 15 minutes: refunds take over (drift), some broken JSON, notes without a schema
      spans.push(
        call('support', m, 'get_weather', '{"city":"Oslo"}', 'claude-sonnet'),
        ...times(2, () => call('support', m, 'refund', '{"order":"o1"}', 'claude-sonnet')),
      );
      if (i % 5 === 0) spans.push(call('support', m, 'get_weather', '{"city": Os', 'claude-sonnet'));
      if (i % 2 === 0) spans.push(call('support', m, 'notes', '{"text":"n"}', 'claude-sonnet'));
    }
  }
  return spans;
}

let tw: Harness;

beforeAll(async () => {
  tw = await startToolwatch({
    // The traffic is laid out minute by minute back from NOW; a clock that moved on into the next
    // minute while the tests run would shift every window by one (the drift shares flaked so).
    services: { now: () => NOW },
    config: {
      alerts: {
        interval: '1h',
        rules: [
          {
            name: 'tool-drift',
            kind: 'drift',
            window: '15m',
            baseline: '45m',
            min_calls: 20,
            min_baseline_calls: 40,
            p_value: 0.01,
            min_distance: 0.1,
          },
        ],
      },
    },
  });
  const res = await fetch(`${tw.url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans: traffic() }),
  });
  expect(res.status).toBe(200);
  await tw.services.alerting.evaluate();
});

afterAll(async () => {
  await tw?.close();
});

describe.skipIf(SKIP_BROWSER)('trends on the page, in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    ({ browser, page } = await openPage());
    await recordProblems(page, problems);
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Everything the charts draw, read back from the SVG (strings: the tests type-check without the DOM library). */
  const drawn = () =>
    page.evaluate(`(() => {
      const num = (v) => (v === '' || v === undefined ? null : Number(v));
      const pts = (svg) => Array.from(svg.querySelectorAll('g.pt')).map((g) => ({ ...Object.fromEntries(Object.entries(g.dataset).map(([k, v]) => [k, k === 't' ? v : num(v)])), title: g.querySelector('title').textContent }));
      return {
        services: Array.from(document.querySelectorAll('figure[data-service] svg[data-chart=service]')).map((svg) => ({
          service: svg.closest('figure').dataset.service, total: num(svg.dataset.total), failed: num(svg.dataset.failed), checked: num(svg.dataset.checked), points: pts(svg),
        })),
        sparks: Array.from(document.querySelectorAll('#tools tr')).map((tr) => {
          const svg = tr.querySelector('svg[data-chart=tool]');
          return { service: tr.cells[0].innerText, tool: tr.cells[1].innerText.replace('names not offered', ''), total: num(svg.dataset.total), failed: num(svg.dataset.failed),
            calls: svg.dataset.calls.split(',').map(Number), failures: svg.dataset.failures.split(',').map(Number) };
        }),
        outcomes: (() => { const svg = document.querySelector('svg[data-chart=outcomes]'); return { keys: JSON.parse(svg.dataset.keys), points: pts(svg) }; })(),
        models: Array.from(document.querySelectorAll('figure[data-chart-card=models]')).map((f) => {
          const svg = f.querySelector('svg');
          return { service: f.dataset.service, keys: JSON.parse(svg.dataset.keys), points: pts(svg),
            markers: Array.from(svg.querySelectorAll('g.marker')).map((m) => ({ model: m.dataset.model, minute: m.dataset.minute, title: m.querySelector('title').textContent })) };
        }),
        drift: Array.from(document.querySelectorAll('figure[data-chart-card=drift]')).map((f) => ({
          rule: f.dataset.rule, service: f.dataset.service, drifting: f.classList.contains('drifting'), caption: f.querySelector('figcaption').innerText,
          shares: Array.from(f.querySelectorAll('g.share')).map((g) => ({ tool: g.dataset.tool, before: Number(g.dataset.before), after: Number(g.dataset.after) })),
        })),
      };
    })()`) as Promise<{
      services: {
        service: string;
        total: number;
        failed: number;
        checked: number;
        points: { t: string; calls: number; failed: number; checked: number; rate: number | null; title: string }[];
      }[];
      sparks: { service: string; tool: string; total: number; failed: number; calls: number[]; failures: number[] }[];
      outcomes: { keys: string[]; points: Record<string, number | string>[] };
      models: {
        service: string;
        keys: string[];
        points: Record<string, number | string>[];
        markers: { model: string; minute: string; title: string }[];
      }[];
      drift: {
        rule: string;
        service: string;
        drifting: boolean;
        caption: string;
        shares: { tool: string; before: number; after: number }[];
      }[];
    }>;

  const stats = async (window: string): Promise<ToolStats[]> =>
    ((await (await fetch(`${tw.url}/api/stats?window=${window}`)).json()) as { tools: ToolStats[] }).tools;
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

  const HOUR = 3_600_000;
  // 1h: 60 minute buckets; 24h: hour buckets from the window's first (partial) hour to the current one.
  const since24h = M + MIN - 24 * HOUR;
  for (const [window, buckets] of [
    ['1h', 60],
    ['24h', Math.ceil((M + MIN - Math.floor(since24h / HOUR) * HOUR) / HOUR)],
  ] as const) {
    it(`${window}: every value drawn matches /api/stats (${buckets} buckets)`, async () => {
      await page.goto(`${tw.url}/?window=${window}`);
      const d = await drawn();
      const st = await stats(window);
      expect(st.length).toBe(5);

      // Per service: the totals, and the buckets add up to them; each bucket's rate is failed / checked.
      expect(d.services.map((s) => s.service)).toEqual(['checkout', 'support']);
      for (const s of d.services) {
        const rows = st.filter((t) => t.service === s.service);
        const failed = sum(rows.map((t) => t.counts.InvalidJson + t.counts.UnknownName + t.counts.SchemaMismatch));
        expect([s.service, s.total, s.failed, s.checked]).toEqual([
          s.service,
          sum(rows.map((t) => t.total)),
          failed,
          sum(rows.map((t) => t.checked)),
        ]);
        expect(s.points).toHaveLength(buckets);
        expect(sum(s.points.map((p) => p.calls))).toBe(s.total);
        expect(sum(s.points.map((p) => p.failed))).toBe(s.failed);
        for (const p of s.points) expect(p.rate).toBe(p.checked ? p.failed / p.checked : null);
      }
      // Per tool: the sparkline in each row of the table.
      expect(d.sparks).toHaveLength(st.length);
      for (const sp of d.sparks) {
        const row = st.find((t) => t.service === sp.service && t.tool === sp.tool)!;
        expect([sp.service, sp.tool, sp.total, sp.failed]).toEqual([
          row.service,
          row.tool,
          row.total,
          row.counts.InvalidJson + row.counts.UnknownName + row.counts.SchemaMismatch,
        ]);
        expect([sum(sp.calls), sum(sp.failures), sp.calls.length]).toEqual([row.total, sp.failed, buckets]);
      }
      // The outcome mix: per outcome, the buckets add up to the outcome's total over every tool.
      expect(d.outcomes.keys).toEqual(['valid', 'InvalidJson', 'UnknownName', 'SchemaMismatch', 'unvalidated']);
      d.outcomes.keys.forEach((o, k) => {
        expect([o, sum(d.outcomes.points.map((p) => Number(p[`v${k}`])))]).toEqual([
          o,
          sum(st.map((t) => t.counts[o as keyof ToolStats['counts']])),
        ]);
      });
    });
  }

  it("1h: the checkout model change is marked at gpt-4.1's first minute; minute buckets hold the error bump", async () => {
    await page.goto(`${tw.url}/?window=1h`);
    const d = await drawn();
    const checkout = d.models.find((m) => m.service === 'checkout')!;
    expect([...checkout.keys].sort()).toEqual(['gpt-4.1', 'gpt-4o']);
    expect(checkout.markers).toEqual([
      { model: 'gpt-4.1', minute: new Date(SWITCH).toISOString(), title: expect.stringContaining('(before: gpt-4o)') },
    ]);
    expect(d.models.find((m) => m.service === 'support')!.markers).toEqual([]); // one model all along: no change
    // Before the switch every checkout call is gpt-4o, from it on gpt-4.1.
    const k41 = checkout.keys.indexOf('gpt-4.1');
    for (const p of checkout.points) {
      const t = Date.parse(String(p.t));
      if (Number(p.total) === 0) continue;
      expect([p.t, Number(p[`v${k41}`]) === Number(p.total)]).toEqual([p.t, t >= SWITCH]);
    }
    const bump = d.services.find((s) => s.service === 'checkout')!.points.filter((p) => p.failed > 0);
    expect(bump.map((p) => Date.parse(p.t)).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => M - 19 * MIN + i * MIN),
    );
    expect(bump.every((p) => p.calls === 6 && p.failed === 2)).toBe(true);
    expect(bump[0]!.title).toMatch(/^\d\d:\d\d UTC · 6 calls · 2 failed · error rate 33\.3%$/);
  });

  it("1h: the drift rule's tool shares, now against its baseline, as the rule computes them", async () => {
    await page.goto(`${tw.url}/?window=1h`);
    const d = await drawn();
    const support = d.drift.find((x) => x.service === 'support')!;
    expect(support.rule).toBe('tool-drift');
    expect(support.drifting).toBe(true);
    // Last 15 minutes: get_weather 15 + 3 (broken JSON), refund 30, notes 8 = 56; baseline: get_weather 135, refund 15 = 150.
    expect(support.shares).toEqual([
      { tool: 'refund', before: 15 / 150, after: 30 / 56 },
      { tool: 'get_weather', before: 135 / 150, after: 18 / 56 },
      { tool: 'notes', before: 0, after: 8 / 56 },
    ]);
    const checkout = d.drift.find((x) => x.service === 'checkout')!;
    expect(checkout.drifting).toBe(false);
    const alerts = (await (await fetch(`${tw.url}/api/alerts`)).json()) as {
      alerts: { rule: string; labels: Record<string, string>; state: string; value: number }[];
    };
    const firing = alerts.alerts.find((a) => a.labels.service === 'support')!;
    expect(firing.state).toBe('firing');
    expect(support.caption).toContain(`JS distance ${firing.value.toFixed(3)}`);
  });

  it('readable in light and dark mode (screenshots taken), with no CSP violation or script error', async () => {
    const shots: Record<string, string> = {};
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${tw.url}/?window=1h`);
      const colours = (await page.evaluate(`(() => ({
        body: getComputedStyle(document.body).backgroundColor,
        card: getComputedStyle(document.querySelector('section')).backgroundColor,
        text: getComputedStyle(document.body).color,
        bar: getComputedStyle(document.querySelector('svg .c-calls')).fill,
        failed: getComputedStyle(document.querySelector('svg .c-failed')).fill,
        line: getComputedStyle(document.querySelector('svg .l-rate')).stroke,
      }))()`)) as Record<string, string>;
      if (scheme === 'light')
        expect(colours).toMatchObject({
          body: 'rgb(246, 248, 250)',
          card: 'rgb(255, 255, 255)',
          text: 'rgb(31, 35, 40)',
        });
      else
        expect(colours).toMatchObject({ body: 'rgb(13, 17, 23)', card: 'rgb(22, 27, 34)', text: 'rgb(230, 237, 243)' });
      for (const k of ['bar', 'failed', 'line']) expect(colours[k], k).toMatch(/^rgb\(/);
      shots[scheme] = path.join(tmpdir(), `toolwatch-trends-${scheme}.png`);
      await page.locator('#trends-section').screenshot({ path: shots[scheme] });
      await page.screenshot({ path: path.join(tmpdir(), `toolwatch-page-${scheme}.png`), fullPage: true });
    }
    console.log(`screenshots: ${Object.values(shots).join(', ')} (and toolwatch-page-{light,dark}.png beside them)`);
    expect(problems).toEqual([]);
  });

  it('a service filter draws only that service', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${tw.url}/?window=1h&service=support`);
    const d = await drawn();
    expect(d.services.map((s) => s.service)).toEqual(['support']);
    expect(d.models.map((m) => m.service)).toEqual(['support']);
    expect(d.drift.map((x) => x.service)).toEqual(['support']);
    const st = (await stats('1h')).filter((t) => t.service === 'support');
    expect(d.services[0]!.total).toBe(sum(st.map((t) => t.total)));
  });
});
