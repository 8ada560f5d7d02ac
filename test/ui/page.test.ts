/**
 * The built-in page (GET /): headers, escaping of hostile span data, and — in a real headless
 * Chromium driven by playwright-core — what an engineer actually sees and can click.
 *
 * The browser part needs the Debian package `chromium` (/usr/bin/chromium; .ci/run installs it).
 * Without it the test fails, unless TOOLWATCH_SKIP_BROWSER=1.
 */
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openPage, SKIP_BROWSER } from '../helpers/browser.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { chatResourceSpans } from '../helpers/otlp-json.js';

const EVIL_TOOL = '<script>alert(1)</script>';
const EVIL_NAME = '<img src=x onerror=alert(2)>';
const EVIL_ARGS = '</code><script>alert(3)</script>';
const EVIL_SERVICE = '"><svg onload=alert(4)>';
const EVIL_SCOPE = '<script>alert(5)</script>';
const EVIL_KEY = 'llm.<img src=x onerror=alert(6)>';

const NOW = Date.now();
let seq = 0;

const tool = (name: string) => ({
  type: 'function',
  name,
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
});
const DEFS = JSON.stringify([tool('lookup'), tool('search'), tool(EVIL_TOOL)]);

/** One GenAI chat span proposing one call. */
function chatSpan(service: string, name: string, args: string) {
  const i = ++seq;
  return chatResourceSpans({
    service,
    traceId: createHash('sha256').update(`trace ${i}`).digest('hex').slice(0, 32),
    spanId: i.toString(16).padStart(16, '0'),
    definitions: DEFS,
    call: { id: `c${i}`, name, arguments: args },
    endMs: NOW,
  });
}

const times = <T>(n: number, f: () => T): T[] => Array.from({ length: n }, f);

/** A framework toolwatch does not read (hostile scope name and key): the instrumentation section lists it. */
function unknownFramework() {
  const span = (i: number) => ({
    traceId: createHash('sha256').update(`unknown ${i}`).digest('hex').slice(0, 32),
    spanId: (1000 + i).toString(16).padStart(16, '0'),
    name: 'generate',
    startTimeUnixNano: String((NOW - 1000) * 1e6),
    endTimeUnixNano: String(NOW * 1e6),
    attributes: [
      { key: 'llm.acme.prompt', value: { stringValue: 'secret prompt' } },
      { key: EVIL_KEY, value: { stringValue: 'x' } },
    ],
  });
  return {
    resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc-c' } }] },
    scopeSpans: [{ scope: { name: EVIL_SCOPE, version: '9.9' }, spans: [span(1), span(2), span(3)] }],
  };
}

/** What the page should show (per service/tool): see the expectations below. */
function spans() {
  return [
    ...times(6, () => chatSpan('svc-a', 'lookup', '{"q":"ok"}')), // valid ×6
    ...times(2, () => chatSpan('svc-a', 'lookup', '{"q":5}')), // SchemaMismatch ×2 → 25 %
    ...times(3, () => chatSpan('svc-a', 'search', '{"q":"x"}')), // valid ×3 → 0 %
    chatSpan('svc-b', EVIL_TOOL, '{"q":"fine"}'), // valid
    chatSpan('svc-b', EVIL_TOOL, '{"q":{"deep":true}}'), // SchemaMismatch → 50 %
    chatSpan('svc-b', EVIL_NAME, '{"q":"x"}'), // UnknownName (tool _unknown)
    chatSpan('svc-b', 'lookup', EVIL_ARGS), // InvalidJson
    chatSpan(EVIL_SERVICE, 'search', '{"q":"x"}'), // valid
  ];
}

let tw: Harness;

beforeAll(async () => {
  tw = await startToolwatch({
    config: {
      alerts: {
        interval: '1h',
        rules: [
          {
            name: 'tool-errors',
            kind: 'error_rate',
            window: '5m',
            threshold: 0.2,
            min_calls: 2,
            by: ['service', 'tool'],
            severity: 'critical',
          },
        ],
      },
      judge: { enabled: true, model: 'judge-model-1', sample_rate: 1 },
    },
    // The judge is on (its summary is on the page, trajectories are stored) but never asked anything here.
    services: {
      judgeClient: { model: 'judge-model-1', judge: () => Promise.reject(new Error('not used in this test')) },
    },
  });
  const res = await fetch(`${tw.url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans: [...spans(), unknownFramework()] }),
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({});
  await tw.services.alerting!.evaluate();
});

afterAll(async () => {
  await tw?.close();
});

describe('GET / (app.inject)', () => {
  it('answers HTML with a strict CSP, nosniff and no referrer', async () => {
    const res = await tw.app.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]{20,}'/);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    // The one script and the one style carry this response's nonce; the next response gets another.
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    expect(res.body.match(/<script\b[^>]*>/g)).toEqual([`<script nonce="${nonce}">`]);
    expect(res.body.match(/<style\b[^>]*>/g)).toEqual([`<style nonce="${nonce}">`]);
    const again = await tw.app.inject('/');
    expect(again.headers['content-security-policy']).not.toContain(nonce);
  });

  it('escapes hostile tool names, call names, arguments and service names', async () => {
    const body = (await tw.app.inject('/')).body;
    for (const evil of [EVIL_TOOL, EVIL_NAME, EVIL_ARGS, EVIL_SERVICE, EVIL_SCOPE, EVIL_KEY])
      expect(body).not.toContain(evil);
    expect(body).toContain('&lt;script&gt;alert(5)&lt;/script&gt;');
    expect(body).toContain('llm.&lt;img src=x onerror=alert(6)&gt;');
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(body).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(body).toContain('&lt;/code&gt;&lt;script&gt;alert(3)&lt;/script&gt;');
    expect(body).toContain('&quot;&gt;&lt;svg onload=alert(4)&gt;');
    // No element anywhere has an event-handler attribute, and only our own tags exist.
    const tags = body.match(/<[a-zA-Z][^>]*>/g)!;
    // (Attribute values are stripped first: escaped data inside them may read "onerror=" harmlessly.)
    const bare = tags.map((t) => t.replace(/"[^"]*"/g, '""'));
    expect(bare.filter((t) => /\son[a-z]+\s*=/i.test(t))).toEqual([]);
    expect(tags.some((t) => /^<img\b/i.test(t))).toBe(false);
    // The only SVG is the page's own charts.
    const svgs = tags.filter((t) => /^<svg\b/i.test(t));
    expect(svgs.length).toBeGreaterThan(0);
    for (const t of svgs)
      expect(t).toMatch(/^<svg class="(chart|spark)[^"]*" data-chart="(service|tool|outcomes|models|drift|problem)"/);
  });

  it('links failures to /api/failures and stored trajectories to /api/trajectories', async () => {
    const body = (await tw.app.inject('/')).body;
    expect(body).toContain('href="/api/failures?service=svc-a&amp;tool=lookup&amp;since=1h"');
    const traj = /href="(\/api\/trajectories\/[0-9a-f]{32})"/.exec(body);
    expect(traj).not.toBeNull();
    expect((await tw.app.inject(traj![1]!)).statusCode).toBe(200);
    // The hostile tool's failure link is percent-encoded, then HTML-escaped.
    expect(body).toContain(
      `href="/api/failures?service=svc-b&amp;${new URLSearchParams({ tool: EVIL_TOOL })}&amp;since=1h"`,
    );
  });

  it('shows alert states and the judge summary', async () => {
    const body = (await tw.app.inject('/')).body;
    expect(body).toMatch(/<span class="badge s-firing">firing<\/span>/);
    expect(body).toContain('tool-errors');
    expect(body).toContain('id="judge-section"');
    expect(body).toContain('judge-model-1');
  });

  it('shows the instrumentation coverage of this process, linked to /api/instrumentation; never a value', async () => {
    const body = (await tw.app.inject('/')).body;
    expect(body).toContain('id="instrumentation-section"');
    expect(body).toContain('href="/api/instrumentation"');
    expect(body).not.toContain('secret prompt');
    const filtered = (await tw.app.inject('/?service=svc-c')).body;
    expect(filtered).toContain('href="/api/instrumentation?service=svc-c"');
    expect(filtered).toContain('&lt;script&gt;alert(5)&lt;/script&gt;');
    expect((await tw.app.inject('/?service=svc-a')).body).not.toContain('alert(5)');
  });

  it('takes ?window= and ?service=, and rejects bad values', async () => {
    const day = (await tw.app.inject('/?window=24h')).body;
    expect(day).toContain('<a class="on" href="/?window=24h">24h</a>');
    const a = (await tw.app.inject('/?window=15m&service=svc-a')).body;
    expect(a).toContain('<option value="svc-a" selected>svc-a</option>');
    expect(a).not.toContain('svc-b</td>');
    for (const q of ['window=forever', 'window=1y', 'window=1000d', 'bogus=1']) {
      const res = await tw.app.inject(`/?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.headers['x-content-type-options'], q).toBe('nosniff');
    }
  });
});

describe.skipIf(SKIP_BROWSER)('GET / in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const dialogs: string[] = [];

  beforeAll(async () => {
    ({ browser, page } = await openPage());
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    // Runs before the page's own script (and outside its CSP): records every policy violation.
    await page.addInitScript(`
      window.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
    `);
  });

  afterAll(async () => {
    await browser?.close();
  });

  // (Strings, not functions: the tests type-check without the DOM library.) The visible rows' cell texts.
  const rows = (sel: string) =>
    page.evaluate(
      `Array.from(document.querySelectorAll(${JSON.stringify(`${sel} tr`)})).filter((tr) => !tr.hidden).map((tr) => Array.from(tr.cells, (c) => c.innerText.trim()))`,
    ) as Promise<string[][]>;
  const violations = () => page.evaluate('window.__violations') as Promise<string[]>;

  it('shows counts per service and tool, failures, alerts; nothing hostile runs', async () => {
    const res = await page.goto(`${tw.url}/`);
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe('toolwatch · 1h');

    const tools = await rows('#tools');
    //                  service, tool, valid, InvalidJson, UnknownName, SchemaMismatch, unvalidated, checked, error rate,
    //                  executions (none here: no tool spans), trend (svg), link
    expect(tools).toContainEqual(['svc-a', 'lookup', '6', '0', '0', '2', '0', '8', '25.0%', '—', '', 'failures']);
    expect(tools).toContainEqual(['svc-a', 'search', '3', '0', '0', '0', '0', '3', '0%', '—', '', '']);
    expect(tools).toContainEqual(['svc-b', EVIL_TOOL, '1', '0', '0', '1', '0', '2', '50.0%', '—', '', 'failures']);
    expect(tools).toContainEqual([
      'svc-b',
      '_unknownnames not offered',
      '0',
      '0',
      '1',
      '0',
      '0',
      '1',
      '100%',
      '—',
      '',
      'failures',
    ]);
    expect(tools).toContainEqual([EVIL_SERVICE, 'search', '1', '0', '0', '0', '0', '1', '0%', '—', '', '']);
    // Worst first.
    expect(tools.map((r) => r[8])).toEqual(['100%', '100%', '50.0%', '25.0%', '0%', '0%']);
    // The 25 % row is highlighted red (≥ 20 %).
    expect(await page.locator('#tools tr', { hasText: 'lookup' }).first().getAttribute('class')).toContain('r-high');

    const cards = (await page.locator('.card').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    expect(cards[0]).toMatch(/^calls 16 /i);
    expect(cards[2]).toMatch(/^failed 5 /i);

    const failures = await rows('#failures');
    expect(failures).toHaveLength(5);
    const byOutcome = Object.fromEntries(failures.map((r) => [r[3], r]));
    expect(byOutcome['UnknownName']!.slice(1, 3)).toEqual(['svc-b', `${EVIL_NAME}not offered`]);
    expect(byOutcome['InvalidJson']![5]).toBe(EVIL_ARGS);
    expect(byOutcome['SchemaMismatch']![4]).toMatch(/^\/q must be string$/);

    const alerts = await rows('#alerts');
    expect(alerts.map((r) => [r[0], r[1]])).toContainEqual(['firing', 'tool-errors']);

    // Instrumentation: the unknown framework first and flagged (only it), with its keys and no values.
    //                  scope, service, spans, LLM-looking, not recognised, without calls, calls, unvalidated, keys
    const scopes = await rows('#scopes');
    expect(scopes).toEqual([
      [`${EVIL_SCOPE} 9.9not recognised`, 'svc-c', '3', '3', '3', '3', '0', '—', `${EVIL_KEY} 3\nllm.acme.prompt 3`],
      ['(no scope name)', 'svc-a', '11', '11', '0', '0', '11', '—', '—'],
      ['(no scope name)', 'svc-b', '4', '4', '0', '0', '4', '—', '—'],
      ['(no scope name)', EVIL_SERVICE, '1', '1', '0', '0', '1', '—', '—'],
    ]);
    expect(await page.locator('#scopes tr.look').count()).toBe(1);

    // The script ran under the CSP (the filter works) …
    await page.fill('#filter', 'svc-b');
    expect((await rows('#tools')).map((r) => r[0])).toEqual(['svc-b', 'svc-b', 'svc-b']);
    await page.fill('#filter', '');

    // … and nothing from the spans did.
    expect(dialogs).toEqual([]);
    expect(await page.locator('img, svg:not([data-chart])').count()).toBe(0);
    expect(await violations()).toEqual([]);
    expect(consoleErrors).toEqual([]);

    const shot = path.join(tmpdir(), 'toolwatch-page.png');
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
  });

  it('switches to the 24h window and filters by service', async () => {
    await page.goto(`${tw.url}/`);
    await Promise.all([page.waitForURL(/\?window=24h$/), page.click('nav a:text-is("24h")')]);
    expect(await page.locator('nav a.on').innerText()).toBe('24h');
    expect(await page.title()).toBe('toolwatch · 24h');
    expect(await page.locator('#tools-section h2').innerText()).toContain('last 24h');
    expect(await rows('#tools')).toHaveLength(6);

    await Promise.all([page.waitForURL(/service=svc-a/), page.selectOption('#service', 'svc-a')]);
    expect(new URL(page.url()).searchParams.get('window')).toBe('24h');
    expect((await rows('#tools')).map((r) => r[1])).toEqual(['lookup', 'search']);
    expect((await rows('#failures')).every((r) => r[1] === 'svc-a')).toBe(true);

    expect(dialogs).toEqual([]);
    expect(await violations()).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
