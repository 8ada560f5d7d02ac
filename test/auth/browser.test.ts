/**
 * A person opening the page with a token: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) gets the login prompt's 401 without credentials; with the token as the password
 * it sees the page of its token's services only, and the page's links to the API work with the same
 * credentials. Without /usr/bin/chromium the test fails, unless TOOLWATCH_SKIP_BROWSER=1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, SKIP_BROWSER } from '../helpers/browser.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { chatResourceSpans } from '../helpers/otlp-json.js';
import { bearer, tokenConfig, type TestToken } from './tokens.js';

const definitions = JSON.stringify([
  { type: 'function', name: 'lookup', parameters: { type: 'object', required: ['id'] } },
]);

describe.skipIf(SKIP_BROWSER)('the page in a browser, with a token', () => {
  let dir: string;
  let tw: Harness;
  let browser: Browser;
  let shop: TestToken;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-browser-'));
    const made = tokenConfig(dir, { shop: { scopes: ['read'], services: ['shop'] }, agents: { scopes: ['ingest'] } });
    shop = made.tokens.shop!;
    tw = await startToolwatch({ config: { auth: made.auth } });
    const resourceSpans = ['shop', 'payroll-internal'].map((service, i) =>
      chatResourceSpans({
        service,
        traceId: `${i + 1}`.padStart(32, 'd'),
        spanId: `${i + 1}`.padStart(16, 'e'),
        definitions,
        endMs: Date.now(),
        call: { id: `c${i}`, name: 'lookup', arguments: '{}' },
      }),
    );
    const res = await fetch(`${tw.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(made.tokens.agents!) },
      body: JSON.stringify({ resourceSpans }),
    });
    expect(res.status).toBe(200);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await tw?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('without credentials: 401 with the Basic challenge, which Chromium treats as a login prompt', async () => {
    const res = await fetch(`${tw.url}/`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('Basic realm="toolwatch"');
    // Headless, the prompt cannot be answered: the navigation fails as an authentication failure.
    const page = await browser.newPage();
    await expect(page.goto(`${tw.url}/`)).rejects.toThrow(/ERR_INVALID_AUTH_CREDENTIALS/);
    await page.close();
  });

  it('with the token as password: its services only, and the API links work with the same login', async () => {
    const context = await browser.newContext({ httpCredentials: { username: 'me', password: shop.value } });
    const page = await context.newPage();
    const res = await page.goto(`${tw.url}/`);
    expect(res?.status()).toBe(200);
    const text = (await page.evaluate('document.body.innerText')) as string;
    expect(text).toContain('shop');
    expect(text).not.toContain('payroll-internal');
    const api = await page.goto(`${tw.url}/api/failures`);
    expect(api?.status()).toBe(200);
    const body = JSON.parse((await page.evaluate('document.body.innerText')) as string) as {
      items: { service: string }[];
    };
    expect(body.items.map((f) => f.service)).toEqual(['shop']);
    await context.close();
  });
});
