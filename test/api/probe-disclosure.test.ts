/**
 * Issue 17, "Also": /readyz is open (probes carry no token), so what it says must not tell a caller
 * without a token where the database is or who logs into it; and no JSON answer may be sniffed into
 * another content type (`X-Content-Type-Options: nosniff`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { bearer, tokenConfig, type TestToken } from '../auth/tokens.js';

const SECRET_TEXT = 'connect ECONNREFUSED db-primary.internal:5432 (user toolwatch_rw)';

describe('/readyz without a token', () => {
  let tw: Harness;
  let tokens: Record<string, TestToken>;
  let dir: string;
  let down = false;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-probe-'));
    const t = tokenConfig(dir, {
      agents: { scopes: ['ingest'] },
      reader: { scopes: ['read'] },
      prometheus: { scopes: ['metrics'] },
    });
    tokens = t.tokens;
    tw = await startToolwatch({ config: { auth: t.auth } });
    const store = tw.services.store;
    const ping = store.ping.bind(store);
    store.ping = () => (down ? Promise.reject(new Error(SECRET_TEXT)) : ping());
  });
  afterAll(async () => {
    await tw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const readyz = (headers: Record<string, string> = {}) => fetch(`${tw.url}/readyz`, { headers });

  it.each([
    ['no token', () => ({})],
    ['a wrong token', () => bearer('tw_not-a-token-of-this-toolwatch')],
    ['an ingest token (browsers carry those)', () => bearer(tokens.agents!)],
  ])('with %s: 503 and a reason, not the store error', async (_name, headers) => {
    down = true;
    try {
      const res = await readyz(headers());
      expect(res.status).toBe(503);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ status: 'unavailable', store: 'sqlite', reason: 'store_unreachable' });
      expect(text).not.toContain('db-primary');
    } finally {
      down = false;
    }
  });

  it.each([['reader'], ['prometheus']])('with the %s token: the store error too', async (name) => {
    down = true;
    try {
      const res = await readyz(bearer(tokens[name]!));
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ reason: 'store_unreachable', error: SECRET_TEXT });
    } finally {
      down = false;
    }
  });

  it.each([
    ['GET', '/readyz', {}],
    ['GET', '/healthz', {}],
    ['GET', '/api/stats', {}],
    ['GET', '/api/stats', 'reader'],
    ['GET', '/api/no-such-endpoint', 'reader'],
    ['POST', '/v1/traces', 'agents'],
    ['POST', '/v1/traces', {}],
  ] as const)('%s %s answers with nosniff', async (method, url, who) => {
    const headers: Record<string, string> = typeof who === 'string' ? bearer(tokens[who]!) : {};
    const res = await fetch(`${tw.url}${url}`, {
      method,
      headers: { ...headers, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      ...(method === 'POST' ? { body: '{"resourceSpans":[]}' } : {}),
    });
    await res.arrayBuffer();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
