/**
 * Every endpoint × {no token, wrong token, wrong scope, right scope}, through app.inject; the table
 * is checked against the routes the app really registers, so a new endpoint cannot slip past it.
 * Then the real OpenTelemetry exporter over a socket, with and without its token, and the OTLP
 * refusal in protobuf.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pb from 'protobufjs/minimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../src/auth/scopes.js';
import { agentCalls } from '../alerts/helpers.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient } from '../helpers/otel.js';
import { registeredRoutes } from '../helpers/routes.js';
import { bearer, eventually, tokenConfig, type TestToken } from './tokens.js';

interface Endpoint {
  method: 'GET' | 'POST' | 'HEAD';
  url: string;
  /** What it needs (a list: any one of them); `open` needs nothing. */
  scope: Scope | Scope[] | 'open';
  /** The status with the right scope. */
  ok: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PROBLEM = '0123456789abcdef';
/** A tool no one has sent: its view is a 404 for every token that may read. */
const TOOL = '/api/tools/svc/weather';
const TOOL_PAGE = '/tools/svc/weather';
const ENDPOINTS: Endpoint[] = [
  {
    method: 'POST',
    url: '/v1/traces',
    scope: 'ingest',
    ok: 200,
    body: { resourceSpans: [] },
    headers: { 'content-type': 'application/json' },
  },
  {
    method: 'POST',
    url: '/v1/logs',
    scope: 'ingest',
    ok: 200,
    body: { resourceLogs: [] },
    headers: { 'content-type': 'application/json' },
  },
  { method: 'GET', url: '/', scope: 'read', ok: 200 },
  { method: 'HEAD', url: '/', scope: 'read', ok: 200 },
  { method: 'GET', url: '/api/failures', scope: 'read', ok: 200 },
  { method: 'GET', url: '/api/stats', scope: 'read', ok: 200 },
  { method: 'GET', url: '/api/sources', scope: 'read', ok: 200 },
  { method: 'GET', url: '/api/instrumentation', scope: 'read', ok: 200 },
  { method: 'GET', url: '/api/judge', scope: 'read', ok: 200 },
  { method: 'GET', url: `/api/trajectories/${TRACE}`, scope: 'read', ok: 404 },
  { method: 'GET', url: '/api/alerts', scope: 'read', ok: 200 },
  { method: 'GET', url: '/api/export/cases', scope: 'read', ok: 200 },
  { method: 'GET', url: '/api/problems', scope: 'read', ok: 200 },
  { method: 'GET', url: `/api/problems/${PROBLEM}`, scope: 'read', ok: 404 },
  { method: 'POST', url: `/api/problems/${PROBLEM}/resolve`, scope: 'admin', ok: 404, body: {} },
  { method: 'POST', url: `/api/problems/${PROBLEM}/mute`, scope: 'admin', ok: 404, body: { until: '1h' } },
  { method: 'POST', url: `/api/problems/${PROBLEM}/reopen`, scope: 'admin', ok: 404, body: {} },
  { method: 'GET', url: '/api/changes', scope: 'read', ok: 200 },
  { method: 'GET', url: TOOL, scope: 'read', ok: 404 },
  // The page's own views of a problem and a tool (HTML).
  { method: 'GET', url: `/problems/${PROBLEM}`, scope: 'read', ok: 404 },
  { method: 'GET', url: TOOL_PAGE, scope: 'read', ok: 404 },
  // Agents report their users' feedback with the token they export spans with.
  {
    method: 'POST',
    url: '/api/feedback',
    scope: ['admin', 'ingest'],
    ok: 200,
    body: { trace_id: TRACE, value: 'down' },
  },
  {
    method: 'POST',
    url: '/api/labels',
    scope: 'admin',
    ok: 200,
    body: { trace_id: TRACE, reached_goal: true, unnecessary_calls: 0, dangerous_calls: 0 },
  },
  { method: 'GET', url: '/metrics', scope: 'metrics', ok: 200 },
  { method: 'GET', url: '/healthz', scope: 'open', ok: 200 },
  { method: 'GET', url: '/readyz', scope: 'open', ok: 200 },
];

/** How many method + path routes the app registers, but those `skip` leaves out. */
function routeCount(h: Harness, skip: (method: string, path: string) => boolean): number {
  return registeredRoutes(h.app).filter((r) => !skip(r.method, r.path)).length;
}

describe('every endpoint × every kind of token', () => {
  let dir: string;
  let tw: Harness;
  /** One token per scope, and one with every scope but that one (or those two). */
  let only: Record<Scope, TestToken>;
  let allBut: Record<Scope, TestToken>;
  let allButAdminIngest: TestToken;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-auth-'));
    const specs: Record<string, { scopes: Scope[] }> = {};
    for (const s of SCOPES) {
      specs[`only-${s}`] = { scopes: [s] };
      specs[`all-but-${s}`] = { scopes: SCOPES.filter((x) => x !== s) };
    }
    specs['all-but-admin-ingest'] = { scopes: ['read', 'metrics'] };
    const { tokens, auth } = tokenConfig(dir, specs);
    allButAdminIngest = tokens['all-but-admin-ingest']!;
    only = Object.fromEntries(SCOPES.map((s) => [s, tokens[`only-${s}`]!])) as Record<Scope, TestToken>;
    allBut = Object.fromEntries(SCOPES.map((s) => [s, tokens[`all-but-${s}`]!])) as Record<Scope, TestToken>;
    tw = await startToolwatch({ config: { auth } });
  });
  afterAll(async () => {
    await tw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the table names every route the app registers', () => {
    for (const e of ENDPOINTS)
      expect(
        tw.app.hasRoute({
          method: e.method,
          url: e.url
            .replace(TRACE, ':traceId')
            .replace(PROBLEM, ':id')
            .replace(TOOL, '/api/tools/:service/:tool')
            .replace(TOOL_PAGE, '/tools/:service/:tool'),
        }),
        `${e.method} ${e.url}`,
      ).toBe(true);
    // Fastify adds HEAD for every GET: those are guarded like their GET (HEAD / is in the table).
    expect(routeCount(tw, (method, p) => method === 'HEAD' && p !== '/')).toBe(ENDPOINTS.length);
  });

  const cases = ENDPOINTS.flatMap((e) => [
    { e, who: 'no token', headers: {} as Record<string, string> },
    { e, who: 'a wrong token', headers: bearer('tw_not-a-token-anyone-has-0000') },
    { e, who: 'a token without the scope', headers: undefined },
    // An endpoint that takes any of several scopes: a token with each one of them alone.
    ...(Array.isArray(e.scope) ? e.scope : [e.scope]).map((s) => ({
      e,
      who: Array.isArray(e.scope) ? `a token with only ${s}` : 'a token with the scope',
      headers: undefined,
      scope: s,
    })),
  ]);

  it.each(cases)('$e.method $e.url with $who', async (c) => {
    const { e, who, headers } = c;
    const granted = who.startsWith('a token with ');
    let auth = headers;
    if (!auth) {
      if (Array.isArray(e.scope)) auth = bearer(granted ? only[(c as { scope: Scope }).scope] : allButAdminIngest);
      else {
        // The open endpoints need no scope: any token "has" it, and none is "missing" it.
        const scope = e.scope === 'open' ? 'read' : e.scope;
        auth = bearer(granted ? only[scope] : allBut[scope]);
      }
    }
    const res = await tw.app.inject({
      method: e.method,
      url: e.url,
      headers: { ...e.headers, ...auth },
      ...(e.body !== undefined
        ? { payload: JSON.stringify(e.body), headers: { 'content-type': 'application/json', ...e.headers, ...auth } }
        : {}),
    });
    const want = e.scope === 'open' || granted ? e.ok : who === 'a token without the scope' ? 403 : 401;
    expect(res.statusCode, res.body).toBe(want);
    if (want === 401) {
      expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer realm="toolwatch"/);
      // Answers never echo a token.
      expect(res.body).not.toContain('tw_not-a-token');
    }
    if (want === 403 && e.method !== 'HEAD')
      expect(res.body).toContain(`lacks the ${[e.scope].flat().join(' or ')} scope`);
    if (e.url === '/v1/traces' && want >= 400) {
      // OTLP answers keep the request's format: a google.rpc.Status in JSON here.
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toMatchObject({ code: want === 401 ? 16 : 7 });
    }
  });

  it('a protobuf export without a token gets a protobuf google.rpc.Status (UNAUTHENTICATED)', async () => {
    const res = await tw.app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { 'content-type': 'application/x-protobuf' },
      payload: Buffer.alloc(0),
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toBe('application/x-protobuf');
    const r = pb.Reader.create(res.rawPayload);
    const status: { code?: number; message?: string } = {};
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag >>> 3 === 1) status.code = r.int32();
      else if (tag >>> 3 === 2) status.message = r.string();
      else r.skipType(tag & 7);
    }
    expect(status).toEqual({ code: 16, message: 'send Authorization: Bearer <token>' });
  });

  it('Basic credentials carry the token too (a browser after its login prompt), and GET offers that challenge', async () => {
    const basic = `Basic ${Buffer.from(`anyone:${only.read.value}`).toString('base64')}`;
    expect((await tw.app.inject({ url: '/api/stats', headers: { authorization: basic } })).statusCode).toBe(200);
    const denied = await tw.app.inject({ url: '/' });
    expect(denied.headers['www-authenticate']).toEqual([
      'Bearer realm="toolwatch"',
      'Basic realm="toolwatch", charset="UTF-8"',
    ]);
  });

  it('refusals are counted by scope and reason; the token never appears in /metrics', async () => {
    await tw.app.inject({ url: '/api/stats' });
    await tw.app.inject({ url: '/api/stats', headers: bearer(allBut.read) });
    await tw.app.inject({
      method: 'POST',
      url: '/api/feedback',
      headers: { 'content-type': 'application/json', ...bearer(allButAdminIngest) },
      payload: JSON.stringify({ trace_id: TRACE, value: -1 }),
    });
    const text = (await tw.app.inject({ url: '/metrics', headers: bearer(only.metrics) })).body;
    // A route that takes either of two scopes is counted under both names.
    expect(
      metricValue(text, 'toolwatch_auth_denied_total', { scope: 'admin,ingest', reason: 'missing_scope' }),
    ).toBeGreaterThan(0);
    expect(
      metricValue(text, 'toolwatch_auth_denied_total', { scope: 'read', reason: 'missing_token' }),
    ).toBeGreaterThan(0);
    expect(
      metricValue(text, 'toolwatch_auth_denied_total', { scope: 'read', reason: 'missing_scope' }),
    ).toBeGreaterThan(0);
    for (const t of Object.values(only)) expect(text).not.toContain(t.value);
  });

  it('the real OpenTelemetry exporter: refused without its token, counted with it', async () => {
    const before = metricValue(await tw.metrics(), 'toolwatch_auth_denied_total', {
      scope: 'ingest',
      reason: 'missing_token',
    });
    const anonymous = otelClient(tw.url, { service: 'no-token' });
    const withToken = otelClient(tw.url, { service: 'with-token', headers: bearer(only.ingest) });
    try {
      // The exporter reports the 401 as a non-retryable failure.
      const refused = await agentCalls(anonymous, { valid: 2 }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect([refused].flat()[0]).toMatchObject({ code: 401, message: 'Unauthorized' });
      await agentCalls(withToken, { valid: 2, invalidJson: 1 });
      await eventually(
        async () => metricValue(await tw.metrics(), 'toolwatch_tool_calls_total', { service: 'with-token' }) === 3,
      );
      const text = await tw.metrics();
      expect(metricValue(text, 'toolwatch_tool_calls_total', { service: 'no-token' })).toBe(0);
      expect(
        metricValue(text, 'toolwatch_auth_denied_total', { scope: 'ingest', reason: 'missing_token' }),
      ).toBeGreaterThan(before);
    } finally {
      await anonymous.shutdown();
      await withToken.shutdown();
    }
  });
});
