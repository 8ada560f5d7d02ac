/**
 * server.cors_origins: browser agents exporting OTLP/JSON. The preflight needs no token and allows
 * POST with Content-Type, Content-Encoding and Authorization; every answer to an allowed origin names
 * it (refusals too, so the agent can read the status); other origins get nothing to go on; a wildcard
 * is never combined with credentials.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, tokenConfig, type TestToken } from '../../auth/tokens.js';
import { startToolwatch, type Harness } from '../../helpers/harness.js';

const APP = 'https://app.example.com';
const preflight = (origin: string, method = 'POST') => ({
  method: 'OPTIONS' as const,
  url: '/v1/traces',
  headers: {
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': 'content-type,authorization',
  },
});
const exportFrom = (origin: string, auth: Record<string, string> = {}) => ({
  method: 'POST' as const,
  url: '/v1/traces',
  headers: { origin, 'content-type': 'application/json', ...auth },
  payload: '{"resourceSpans":[]}',
});

describe('CORS for browser agents', () => {
  let dir: string;
  let token: TestToken;
  let listed: Harness;
  let any: Harness;
  let none: Harness;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-cors-'));
    const made = tokenConfig(dir, { browser: { scopes: ['ingest'] } });
    token = made.tokens.browser!;
    listed = await startToolwatch({
      listen: false,
      config: { auth: made.auth, server: { cors_origins: [APP, 'http://localhost:5173'] } },
    });
    any = await startToolwatch({ listen: false, config: { auth: made.auth, server: { cors_origins: ['*'] } } });
    none = await startToolwatch({ listen: false, config: { auth: made.auth } });
  });
  afterAll(async () => {
    await Promise.all([listed?.close(), any?.close(), none?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('preflight from a listed origin: 204, no token needed, POST and the exporter headers allowed', async () => {
    const res = await listed.app.inject(preflight(APP));
    expect(res.statusCode).toBe(204);
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'Content-Type, Content-Encoding, Authorization',
      'access-control-max-age': '7200',
    });
    expect(String(res.headers.vary)).toContain('Origin');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('user feedback from a browser agent: preflight and POST /api/feedback with its ingest token', async () => {
    const pre = await listed.app.inject({ ...preflight(APP), url: '/api/feedback' });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers).toMatchObject({ 'access-control-allow-origin': APP, 'access-control-allow-methods': 'POST' });
    const post = (h: Harness, origin: string, auth: Record<string, string>) =>
      h.app.inject({
        method: 'POST',
        url: '/api/feedback',
        headers: { origin, 'content-type': 'application/json', ...auth },
        payload: JSON.stringify({
          trace_id: '0af7651916cd43dd8448eb211c80319c',
          value: 'thumbs-down',
          source: 'widget',
        }),
      });
    const ok = await post(listed, APP, bearer(token));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(APP);
    const refused = await post(listed, APP, {});
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(APP);
    expect(
      (await post(listed, 'https://evil.example', bearer(token))).headers['access-control-allow-origin'],
    ).toBeUndefined();
    // No cors_origins: no preflight route at all.
    expect((await none.app.inject({ ...preflight(APP), url: '/api/feedback' })).statusCode).toBe(404);
  });

  it('preflight from another origin, or for another method: 403 and no allow header', async () => {
    for (const req of [preflight('https://evil.example'), preflight(APP, 'DELETE')]) {
      const res = await listed.app.inject(req);
      expect(res.statusCode).toBe(403);
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
    }
    expect(
      (await listed.app.inject(preflight('https://evil.example'))).headers['access-control-allow-origin'],
    ).toBeUndefined();
  });

  it('the export itself: allowed origin named on success and on refusal; Retry-After readable', async () => {
    const ok = await listed.app.inject(exportFrom(APP, bearer(token)));
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(APP);
    expect(ok.headers['access-control-expose-headers']).toBe('Retry-After');
    const refused = await listed.app.inject(exportFrom(APP));
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(APP);
    const other = await listed.app.inject(exportFrom('https://evil.example', bearer(token)));
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('"*": any origin, as a plain wildcard, never with credentials', async () => {
    const pre = await any.app.inject(preflight('https://anywhere.example'));
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    const res = await any.app.inject(exportFrom('https://anywhere.example', bearer(token)));
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('without cors_origins: no preflight route and no CORS headers', async () => {
    expect((await none.app.inject(preflight(APP))).statusCode).toBe(404);
    expect(
      (await none.app.inject(exportFrom(APP, bearer(token)))).headers['access-control-allow-origin'],
    ).toBeUndefined();
  });
});
