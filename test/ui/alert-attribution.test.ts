/**
 * The page's alerts section shows a firing alert's attribution (GET /api/alerts `attribution`):
 * spans sent through POST /v1/traces, one error_rate rule by service and tool evaluated at a scripted
 * instant, read back in headless Chromium — a tool with a hostile name whose definition changed
 * (`reason` became required) names that change, a service failing with no change says so plainly,
 * and the sentence (which carries the tool's name) is escaped like every other cell.
 */
import { createHash } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, recordProblems, SKIP_BROWSER } from '../helpers/browser.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { chatResourceSpans } from '../helpers/otlp-json.js';

const EVIL_TOOL = '<img src=x onerror=alert(1)>';
const MIN = 60_000;
const minuteOf = (ms: number) => Math.floor(ms / MIN) * MIN;
const base = minuteOf(Date.now()) - 3 * 60 * MIN;
const T1 = base + 60 * MIN;

const definitions = (tool: string, required: string[]) =>
  JSON.stringify([
    {
      type: 'function',
      name: tool,
      description: 'Refund.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string' }, reason: { type: 'string' } },
        required,
      },
    },
  ]);

let seq = 0;
/**
 * One call every 5 s per service for 90 min, a third of them without `reason`: shop's definition
 * makes `reason` required at T1 (those fail from then on); calm's always did, and its calls leave
 * `reason` out only from T1 (the same rise, no change).
 */
function spans() {
  const out: ReturnType<typeof chatResourceSpans>[] = [];
  for (let t = base, i = 0; t < base + 90 * MIN; t += 5_000, i++) {
    const short = i % 3 === 0;
    for (const [service, tool] of [
      ['shop', EVIL_TOOL],
      ['calm', 'refund_order'],
    ] as const) {
      const n = ++seq;
      const required = service === 'calm' || t >= T1 ? ['order_id', 'reason'] : ['order_id'];
      const leavesOut = short && (service === 'shop' || t >= T1);
      out.push(
        chatResourceSpans({
          service,
          traceId: createHash('sha256').update(`alert ${n}`).digest('hex').slice(0, 32),
          spanId: n.toString(16).padStart(16, '0'),
          definitions: definitions(tool, required),
          call: {
            id: `c${n}`,
            name: tool,
            arguments: leavesOut ? '{"order_id":"o1"}' : '{"order_id":"o1","reason":"late"}',
          },
          // The span starts at t.
          endMs: t + 1_000,
        }),
      );
    }
  }
  return out;
}

let tw: Harness;

beforeAll(async () => {
  tw = await startToolwatch({
    config: {
      alerts: {
        interval: '24h',
        rules: [
          {
            name: 'tools-failing',
            kind: 'error_rate',
            window: '10m',
            threshold: 0.05,
            min_calls: 20,
            by: ['service', 'tool'],
          },
        ],
      },
    },
  });
  const all = spans();
  for (let i = 0; i < all.length; i += 200) {
    const res = await fetch(`${tw.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: all.slice(i, i + 200) }),
    });
    expect(res.status).toBe(200);
  }
  const r = await tw.services.alerting.evaluate(T1 + 5 * MIN);
  expect(r?.errors).toEqual([]);
}, 90_000);

afterAll(async () => {
  await tw?.close();
});

interface AlertView {
  labels: Record<string, string>;
  state: string;
  attribution: { text: string; likely_change: { change: { kind: string; tool?: string } } | null } | null;
}

describe.skipIf(SKIP_BROWSER)('the alerts section in headless Chromium', () => {
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

  it("shows each firing alert's likely change, or that none was found, escaped", async () => {
    const api = (await tw.app.inject('/api/alerts')).json().alerts as AlertView[];
    const shop = api.find((a) => a.labels.service === 'shop')!;
    const calm = api.find((a) => a.labels.service === 'calm')!;
    expect([shop.state, calm.state]).toEqual(['firing', 'firing']);
    expect(shop.attribution?.likely_change?.change).toMatchObject({ kind: 'tool_definition', tool: EVIL_TOOL });
    expect(shop.attribution?.text).toContain(`${EVIL_TOOL}'s definition changed at`);
    expect(calm.attribution?.likely_change).toBeNull();
    expect(calm.attribution?.text).toContain('no change of this service');

    await page.goto(`${tw.url}/`);
    const cells = (await page.evaluate(
      `Array.from(document.querySelectorAll('#alerts tr')).map((r) => [r.dataset.filter, r.querySelector('td.cause').innerText.trim(), r.querySelector('td.cause').classList.contains('named')])`,
    )) as [string, string, boolean][];
    const row = (service: string) => cells.find(([filter]) => filter.split(' ').includes(service))!;
    expect(row('shop').slice(1)).toEqual([`likely: ${shop.attribution!.text}`, true]);
    expect(row('calm').slice(1)).toEqual([`none found: ${calm.attribution!.text}`, false]);
    // The tool's name is text, not markup: no image, no handler ran, nothing the policy refused.
    expect(await page.locator('img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
  });
});
