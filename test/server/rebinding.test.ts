/**
 * Issue 17, finding 7: DNS rebinding in the no-token (loopback-only) mode. A page whose name rebinds
 * to 127.0.0.1 reaches toolwatch from the developer's browser, but its requests name the page's host
 * in Host and its origin in Origin: only loopback Host values are answered, and writes from a
 * foreign Origin are refused. With tokens the guard is off (the token is the guard).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/server/loopback-guard.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { tokenConfig } from '../auth/tokens.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const spans = JSON.stringify({ resourceSpans: [] });

describe('no tokens: only loopback Host values, no foreign Origin on writes', () => {
  let tw: Harness;
  beforeAll(async () => {
    tw = await startToolwatch({ listen: false, config: { server: { cors_origins: ['https://agent.example'] } } });
  });
  afterAll(async () => {
    await tw.close();
  });

  it.each([
    ['localhost', 200],
    ['localhost:4318', 200],
    ['LOCALHOST:4318', 200],
    ['localhost.:4318', 200],
    ['127.0.0.1', 200],
    ['127.0.0.1:4318', 200],
    ['127.12.0.9:80', 200],
    ['[::1]', 200],
    ['[::1]:4318', 200],
    ['attacker.example', 403],
    ['attacker.example:4318', 403],
    ['127.0.0.1.nip.io:4318', 403],
    ['localhost.attacker.example', 403],
    ['10.0.0.7:4318', 403],
    ['0.0.0.0:4318', 403],
    ['[::]:4318', 403],
    ['::1:4318', 403],
  ])('Host %j → %i on reads, writes and unknown paths', async (host, status) => {
    for (const req of [
      { method: 'GET' as const, url: '/api/failures' },
      { method: 'GET' as const, url: '/' },
      { method: 'GET' as const, url: '/metrics' },
      { method: 'POST' as const, url: '/v1/traces', payload: spans, headers: { 'content-type': 'application/json' } },
    ]) {
      const res = await tw.app.inject({ ...req, headers: { ...req.headers, host } });
      expect(res.statusCode, `${req.method} ${req.url}`).toBe(status);
      if (status === 403) expect(res.json().message).toMatch(/not a loopback name/);
    }
    const unknown = await tw.app.inject({ method: 'GET', url: '/api/nope', headers: { host } });
    expect(unknown.statusCode).toBe(status === 200 ? 404 : 403);
  });

  const writes = [
    { url: '/v1/traces', payload: spans, headers: { 'content-type': 'application/json' } },
    { url: '/api/feedback', payload: { trace_id: TRACE, value: 'down' }, headers: {} },
  ];

  it.each([
    [undefined, 200],
    ['http://localhost:3000', 200],
    ['http://127.0.0.1:4318', 200],
    ['https://[::1]:8443', 200],
    ['https://agent.example', 200],
    ['http://attacker.example', 403],
    ['http://localhost.attacker.example', 403],
    ['null', 403],
    ['file://', 403],
  ])('POST with Origin %j → %i', async (origin, status) => {
    for (const w of writes) {
      const res = await tw.app.inject({
        method: 'POST',
        url: w.url,
        payload: w.payload,
        headers: { ...w.headers, host: '127.0.0.1:4318', ...(origin ? { origin } : {}) },
      });
      expect(res.statusCode, w.url).toBe(status);
      if (status === 403) expect(res.json().message).toMatch(/may not write here/);
    }
  });

  it('no Host (HTTP/1.0) or an empty one names no loopback host', () => {
    // app.inject always sends one: the predicate itself.
    expect(isLoopbackHost(undefined)).toBe(false);
    expect(isLoopbackHost('')).toBe(false);
    expect(isLoopbackHost(':4318')).toBe(false);
  });

  it('reads from a foreign Origin are left to the browser (same-origin policy): the Host decides', async () => {
    const res = await tw.app.inject({
      method: 'GET',
      url: '/api/stats',
      headers: { host: 'localhost:4318', origin: 'http://attacker.example' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('with tokens the Host is not checked (a rebound page has no token)', () => {
  let tw: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-rebind-'));
    const { auth } = tokenConfig(dir, { reader: { scopes: ['read'] } });
    tw = await startToolwatch({ listen: false, config: { auth } });
  });
  afterAll(async () => {
    await tw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a foreign Host gets 401 (the token check), not the loopback refusal', async () => {
    const res = await tw.app.inject({ method: 'GET', url: '/api/failures', headers: { host: 'toolwatch.prod:4318' } });
    expect(res.statusCode).toBe(401);
  });
});
