/**
 * The page's Problems section, a problem's view (/problems/:id) and a tool's view
 * (/tools/:service/:tool): fed through POST /v1/traces on a real socket — a tool whose definition
 * changes (amount becomes required) and then fails, a truncated InvalidJson, hostile names — and
 * read back in headless Chromium: problems listed new, the signature in words, the schema error
 * marked in the example, the change before it, the definition versions with their diff, the change
 * markers on the trend charts (and their filter), every span text escaped.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openPage, recordProblems, SKIP_BROWSER } from '../helpers/browser.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { chatResourceSpans } from '../helpers/otlp-json.js';

const EVIL_TOOL = '<script>alert(1)</script>';
const EVIL_NAME = '<img src=x onerror=alert(2)>';
const EVIL_ARGS = '{"q":"</pre><script>alert(3)</script>"';

const NOW = Date.now();
const MIN = 60_000;
let seq = 0;

const refundV1 = {
  type: 'function',
  name: 'refund_order',
  description: 'Refund an order',
  parameters: {
    type: 'object',
    properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
    required: ['order_id'],
  },
};
const refundV2 = {
  ...refundV1,
  parameters: { ...refundV1.parameters, required: ['order_id', 'amount'] },
};
const evil = {
  type: 'function',
  name: EVIL_TOOL,
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};
const V1 = JSON.stringify([refundV1, evil]);
const V2 = JSON.stringify([refundV2, evil]);

function span(defs: string, name: string, args: string, endMs: number, model = 'gpt-a') {
  const i = ++seq;
  return chatResourceSpans({
    service: 'shop',
    traceId: createHash('sha256').update(`problems ${i}`).digest('hex').slice(0, 32),
    spanId: i.toString(16).padStart(16, '0'),
    definitions: defs,
    call: { id: `c${i}`, name, arguments: args },
    endMs,
    model,
  });
}

const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** v1 half an hour ago (all valid), v2 from 20 minutes ago: `amount` missing ×4 (two models), and the rest. */
function spans() {
  return [
    ...times(6, () => span(V1, 'refund_order', '{"order_id":"A1"}', NOW - 30 * MIN)),
    ...times(3, () => span(V2, 'refund_order', '{"order_id":"A2","amount":5}', NOW - 20 * MIN)),
    ...times(4, (i) =>
      span(V2, 'refund_order', `{"order_id":"B${i}"}`, NOW - (15 - i) * MIN, i % 2 ? 'gpt-b' : 'gpt-a'),
    ),
    span(V2, 'refund_order', '{"order_id":7,"amount":1}', NOW - 12 * MIN), // type /order_id
    span(V2, 'refund_order', '{"order_id": "A9", "amo', NOW - 11 * MIN), // InvalidJson truncated
    span(V2, EVIL_TOOL, EVIL_ARGS, NOW - 10 * MIN), // InvalidJson with hostile text, hostile tool
    span(V2, EVIL_NAME, '{"q":"x"}', NOW - 9 * MIN), // UnknownName, hostile name
  ];
}

let tw: Harness;

beforeAll(async () => {
  tw = await startToolwatch();
  // One request per span: the definition change is seen in time order, as agents send it.
  for (const rs of spans()) {
    const res = await fetch(`${tw.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [rs] }),
    });
    expect(res.status).toBe(200);
  }
});

afterAll(async () => {
  await tw?.close();
});

async function problemsApi() {
  const res = await tw.app.inject('/api/problems?since=1h');
  return (res.json() as { problems: { id: string; service: string; tool: string; outcome: string; parts: string[] }[] })
    .problems;
}

describe('problem and tool views (app.inject)', () => {
  it('serves both views with the strict headers, escapes span text, and 404s what does not exist', async () => {
    const ps = await problemsApi();
    const evilProblem = ps.find((p) => p.tool === EVIL_TOOL)!;
    const unknown = ps.find((p) => p.outcome === 'UnknownName')!;
    for (const url of [
      `/problems/${evilProblem.id}?service=shop`,
      `/problems/${unknown.id}?service=shop`,
      `/tools/shop/${encodeURIComponent(EVIL_TOOL)}`,
      '/tools/shop/refund_order',
      '/',
    ]) {
      const res = await tw.app.inject(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(String(res.headers['content-security-policy']), url).not.toContain('unsafe-inline');
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      for (const bad of [EVIL_TOOL, EVIL_NAME, '<script>alert(3)</script>']) expect(res.body, url).not.toContain(bad);
      const tags = (res.body.match(/<[a-zA-Z][^>]*>/g) ?? []).map((t) => t.replace(/"[^"]*"/g, '""'));
      expect(
        tags.filter((t) => /\son[a-z]+\s*=/i.test(t)),
        url,
      ).toEqual([]);
      expect(
        tags.some((t) => /^<img\b/i.test(t)),
        url,
      ).toBe(false);
    }
    expect((await tw.app.inject('/problems/0123456789abcdef')).statusCode).toBe(404);
    expect((await tw.app.inject('/tools/shop/nope')).statusCode).toBe(404);
    expect((await tw.app.inject('/tools/other/refund_order')).statusCode).toBe(404);
    expect((await tw.app.inject('/tools/shop/refund_order?window=forever')).statusCode).toBe(400);
    expect((await tw.app.inject(`/problems/${evilProblem.id}?bogus=1`)).statusCode).toBe(400);
  });
});

describe.skipIf(SKIP_BROWSER)('problem and tool views in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const dialogs: string[] = [];

  beforeAll(async () => {
    ({ browser, page } = await openPage());
    await recordProblems(page, problems);
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  const texts = (sel: string) =>
    page.evaluate(
      `Array.from(document.querySelectorAll(${JSON.stringify(sel)})).map((e) => e.innerText.trim())`,
    ) as Promise<string[]>;
  const data = (sel: string, key: string) =>
    page.evaluate(
      `Array.from(document.querySelectorAll(${JSON.stringify(sel)})).map((e) => e.dataset[${JSON.stringify(key)}])`,
    ) as Promise<string[]>;

  it('lists the problems at the top of the page, new ones marked, and opens one', async () => {
    await page.goto(`${tw.url}/`);
    // The Problems section comes before alerts, trends and the raw failures.
    const order = (await page.evaluate(
      `Array.from(document.querySelectorAll('main > section')).map((s) => s.id)`,
    )) as string[];
    expect(order.indexOf('problems-section')).toBe(0);
    expect(order.indexOf('failures-section')).toBeGreaterThan(order.indexOf('problems-section'));

    const api = await problemsApi();
    expect(await data('#problems tr', 'problem')).toEqual(api.map((p) => p.id));
    const rows = await texts('#problems tr');
    expect(rows).toHaveLength(5);
    // Every one is new in this window: marked so, 'new' badge first in the row.
    expect(await data('#problems tr', 'new')).toEqual(['true', 'true', 'true', 'true', 'true']);
    expect(rows.every((r) => r.startsWith('new'))).toBe(true);
    const missing = rows.find((r) => r.includes('amount is missing'))!;
    //               status, problem, service, outcome, in window, all, …
    expect(missing).toMatch(/^new\s+refund_order: amount is missing\s+tool view\s+shop\s+SchemaMismatch\s+4\s+4\s/);
    expect(missing).toContain('gpt-a 2');
    expect(missing).toContain('gpt-b 2');
    expect(rows.some((r) => r.includes(`${EVIL_TOOL}: arguments cut off before the end (truncated`))).toBe(true);
    expect(rows.some((r) => r.includes(`${EVIL_NAME.toLowerCase()} called, a tool that was not offered`))).toBe(true);
    expect(rows.some((r) => r.includes('refund_order: order_id has the wrong type'))).toBe(true);
    // The hourly sparkline carries the counts.
    const counts = (await data('#problems svg[data-chart="problem"]', 'counts')).map((c) =>
      c.split(',').reduce((a, b) => a + Number(b), 0),
    );
    expect(counts.reduce((a, b) => a + b, 0)).toBe(8);

    await Promise.all([
      page.waitForURL(/\/problems\/[0-9a-f]{16}\?service=shop/),
      page.click('#problems tr:has-text("amount is missing") td.sig > a'),
    ]);
    expect(await page.locator('#occurrences').innerText()).toBe('4');
  });

  it("a problem's view: the signature, the change before it, the marked example and the offered schema", async () => {
    const p = (await problemsApi()).find((x) => x.parts.includes('required /amount'))!;
    await page.goto(`${tw.url}/problems/${p.id}?service=shop`);
    expect(await texts('#signature-words li')).toEqual(['amount is missing']);
    expect(await page.locator('#canonical').innerText()).toBe(
      JSON.stringify(['tw1', 'SchemaMismatch', 'shop', 'refund_order', 'required /amount']),
    );
    // The definition change 20 minutes ago is the one change before it began; attribution names none yet.
    const before = await texts('#changes-before li');
    expect(before).toHaveLength(1);
    expect(before[0]).toContain("shop: refund_order's definition changed");
    // Occurrences per hour, with the change marked on the chart.
    const chart = page.locator('svg[data-chart="problem-hours"]');
    expect(await chart.getAttribute('data-total')).toBe('4');
    expect(await chart.locator('g.change.k-tool_definition').count()).toBe(1);
    // Examples: the first, the latest and one per model, each with the missing property marked.
    const slots = await data('#examples .example', 'slot');
    expect(slots.length).toBeGreaterThanOrEqual(3);
    expect(await page.locator('#examples mark.hl').first().getAttribute('title')).toBe('amount is missing');
    expect(await page.locator('#examples mark.hl').count()).toBe(slots.length);
    expect(await page.locator('#schema-section pre').innerText()).toContain('"amount"');
    expect(await texts('#problem-models td:first-child')).toEqual(['gpt-a', 'gpt-b']);
    // The export link asks the API for the example's trace.
    const exportHref = await page.locator('#examples a.export').first().getAttribute('href');
    expect(exportHref).toMatch(/^\/api\/export\/cases\?trace_id=[0-9a-f]{32}&since=/);
    expect((await tw.app.inject(exportHref!)).statusCode).toBe(200);

    // A type error marks the value itself.
    const t = (await problemsApi()).find((x) => x.parts.includes('type /order_id'))!;
    await page.goto(`${tw.url}/problems/${t.id}?service=shop`);
    expect(await page.locator('#examples mark.hl').first().innerText()).toBe('7');

    // Hostile text stays text: the tool name in the header, the arguments in the example.
    const e = (await problemsApi()).find((x) => x.tool === EVIL_TOOL)!;
    await page.goto(`${tw.url}/problems/${e.id}?service=shop`);
    expect(await page.locator('#signature-section h2').innerText()).toContain(EVIL_TOOL);
    expect(await page.locator('#examples pre').first().innerText()).toBe(EVIL_ARGS);
    expect(await page.locator('img').count()).toBe(0);
  });

  it("a tool's view: versions with their diff, problems, and the change marked on its chart", async () => {
    await page.goto(`${tw.url}/`);
    await Promise.all([
      page.waitForURL(/\/tools\/shop\/refund_order/),
      page.click('#tools a:has-text("refund_order")'),
    ]);
    const versions = await texts('#versions > tr');
    expect(versions).toHaveLength(2);
    expect(versions[0]).toMatch(/current/);
    expect(await texts('#versions > tr:first-child ul.diff li')).toEqual(['`amount` became required']);
    expect(await page.locator('#versions > tr:first-child ul.diff li.add').count()).toBe(1);
    expect(versions[1]).toContain('first version seen');
    expect(await data('#versions > tr', 'calls')).toEqual(['9', '6']);
    expect((await data('#tool-problems tr', 'problem')).length).toBe(3);
    const chart = page.locator('svg[data-chart="tool-calls"]');
    expect(await chart.getAttribute('data-total')).toBe('15');
    expect(await chart.locator('g.change.k-tool_definition').count()).toBe(1);
    // Listed under the chart: the definition change, and the model changes the alternating models made.
    expect(await data('#tool-changes li', 'changeKind')).toContain('tool_definition');
    expect(await texts('#tool-changes li[data-change-kind="tool_definition"]')).toEqual([
      expect.stringContaining("shop: refund_order's definition changed"),
    ]);
  });

  it('marks the change on the trend charts and hides a kind on demand', async () => {
    await page.goto(`${tw.url}/`);
    const marker = page.locator('svg[data-chart="service"] g.change.k-tool_definition');
    expect(await marker.count()).toBe(1);
    expect(await marker.getAttribute('data-tool')).toBe('refund_order');
    expect(await marker.isVisible()).toBe(true);
    await page.uncheck('input[data-marker-kind="tool_definition"]');
    expect(await marker.isVisible()).toBe(false);
    await page.check('input[data-marker-kind="tool_definition"]');
    expect(await marker.isVisible()).toBe(true);
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
  });
});
