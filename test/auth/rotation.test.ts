/**
 * Token rotation without a restart: the reload the SIGHUP handler calls (src/server/reload.ts), in
 * process, then the real signal to a real toolwatch process — and the loopback-only refusal, which
 * only a process shows (exit status 2 and what to set).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { reloadSecrets } from '../../src/server/reload.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { buildMain, startMain, type BuiltMain } from '../helpers/main-process.js';
import { bearer, newTokenValue, tokenConfig, type TestToken } from './tokens.js';

describe('rotation by reload (what SIGHUP calls)', () => {
  let dir: string;
  let tw: Harness;
  let reader: TestToken;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-rotate-'));
    const made = tokenConfig(dir, { reader: { scopes: ['read'] }, prom: { scopes: ['metrics'] } });
    reader = made.tokens.reader!;
    tw = await startToolwatch({ config: { auth: made.auth } });
  });
  afterAll(async () => {
    await tw?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const status = async (token: string) =>
    (await tw.app.inject({ url: '/api/stats', headers: bearer(token) })).statusCode;
  const reload = () =>
    reloadSecrets({ tokens: tw.services.tokens, metrics: tw.services.metrics, log: createLogger('silent') });

  it('a rewritten token file takes over; the old token stops working', async () => {
    const old = reader.value;
    expect(await status(old)).toBe(200);
    const next = newTokenValue();
    writeFileSync(reader.file, next);
    // Nothing changes before the reload.
    expect(await status(next)).toBe(401);
    expect(reload()).toEqual({ tokens: 'ok' });
    expect(await status(next)).toBe(200);
    expect(await status(old)).toBe(401);
    reader.value = next;
  });

  it('a reload that cannot read every token changes nothing, and says so', async () => {
    writeFileSync(reader.file, '');
    expect(reload()).toEqual({ tokens: 'failed' });
    expect(await status(reader.value)).toBe(200);
    const text = await tw.metrics();
    expect(metricValue(text, 'toolwatch_reloads_total', { what: 'tokens', status: 'failed' })).toBe(1);
    expect(metricValue(text, 'toolwatch_reloads_total', { what: 'tokens', status: 'ok' })).toBe(1);
    writeFileSync(reader.file, reader.value);
  });
});

describe('a real toolwatch process', () => {
  let main: BuiltMain;
  let dir: string;
  beforeAll(async () => {
    main = await buildMain();
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-process-'));
  });
  afterAll(() => {
    main?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('no tokens on a non-loopback address: exits 2 and says what to set, before opening anything', async () => {
    const p = startMain(main.file, {
      cwd: dir,
      env: { HOST: '0.0.0.0', PORT: '0', DATABASE_URL: path.join(dir, 'refused.db') },
    });
    expect(await p.exited).toBe(2);
    expect(p.output()).toContain('server.host: 0.0.0.0 is reachable from other machines, and auth.tokens is empty');
    expect(p.output()).toContain('Set auth.tokens (see docs/operations.md, Security), or listen on 127.0.0.1');
    expect(p.output()).toContain('auth.allow_unauthenticated: true');
  });

  it('SIGHUP re-reads the token file: the new token works, the old one is refused, no restart', async () => {
    const made = tokenConfig(dir, { reader: { scopes: ['read'] } });
    const config = path.join(dir, 'toolwatch.yaml');
    writeFileSync(
      config,
      `server:\n  host: 127.0.0.1\n  port: 0\nauth:\n  tokens:\n    - name: reader\n      token_file: reader.token\n      scopes: [read]\n`,
    );
    const p = startMain(main.file, {
      cwd: dir,
      args: ['--config', config],
      env: { DATABASE_URL: path.join(dir, 'hup.db'), LOG_LEVEL: 'info' },
    });
    try {
      const [, url] = await p.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
      const status = async (token: string) => (await fetch(`${url}/api/stats`, { headers: bearer(token) })).status;
      const old = made.tokens.reader!.value;
      expect(await status(old)).toBe(200);
      const next = newTokenValue();
      writeFileSync(made.tokens.reader!.file, `${next}\n`);
      p.child.kill('SIGHUP');
      await p.waitFor(/reload: auth tokens re-read/);
      expect(await status(next)).toBe(200);
      expect(await status(old)).toBe(401);
      // Still the same process, and no token in its log.
      expect(p.child.exitCode).toBeNull();
      expect(p.output()).not.toContain(next);
      expect(p.output()).not.toContain(old);
    } finally {
      await p.stop();
    }
  });
});
