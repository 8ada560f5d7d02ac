/**
 * Headless Chromium (the Debian package) for the page tests, driven by playwright-core. Without the
 * binary a test fails, unless TOOLWATCH_SKIP_BROWSER=1.
 */
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const SKIP_BROWSER = process.env.TOOLWATCH_SKIP_BROWSER === '1';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install the Debian package \`chromium\` (apt-get install -y --no-install-recommends chromium), or set TOOLWATCH_SKIP_BROWSER=1 to skip the browser test`,
    );
  }
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
}

/** A browser and one 1280×900 page. */
export async function openPage(): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium();
  return { browser, page: await browser.newPage({ viewport: { width: 1280, height: 900 } }) };
}

/** Records into `problems` every console error, page error and Content-Security-Policy violation of the page. */
export async function recordProblems(page: Page, problems: string[]): Promise<void> {
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.addInitScript(
    `document.addEventListener('securitypolicyviolation', (e) => console.error('CSP ' + e.violatedDirective))`,
  );
}
