/**
 * Service-restricted tokens: one toolwatch, several teams. An ingest token's spans of other services
 * are rejected through partialSuccess (and counted); a read token sees only its services in every
 * API answer and on the page; an unrestricted token sees everything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentCalls } from '../alerts/helpers.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient } from '../helpers/otel.js';
import { chatResourceSpans } from '../helpers/otlp-json.js';
import { bearer, eventually, tokenConfig, type TestToken } from './tokens.js';

const definitions = JSON.stringify([
  { type: 'function', name: 'lookup', parameters: { type: 'object', properties: { id: { type: 'string' } } } },
]);
const OTHER = 'billing-secret-team';
let n = 0;
/** One chat span of `service` proposing a call with broken JSON (a stored failure). */
function failing(service: string) {
  n++;
  const traceId = n.toString(16).padStart(32, 'a');
  const spanId = n.toString(16).padStart(16, 'b');
  return {
    traceId,
    rs: chatResourceSpans({
      service,
      traceId,
      spanId,
      definitions,
      endMs: Date.now(),
      call: { id: `c${n}`, name: 'lookup', arguments: '{"id": ' },
    }),
  };
}

describe('service-restricted tokens', () => {
  let dir: string;
  let tw: Harness;
  let t: Record<string, TestToken>;
  const traces: Record<string, string> = {};

  const post = (token: TestToken, resourceSpans: unknown[]) =>
    tw.app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      payload: JSON.stringify({ resourceSpans }),
    });
  const get = async (token: TestToken, url: string) => {
    const res = await tw.app.inject({ url, headers: bearer(token) });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-teams-'));
    const made = tokenConfig(dir, {
      teamA: { scopes: ['ingest', 'read'], services: ['checkout', 'checkout-*'] },
      teamB: { scopes: ['ingest', 'read'], services: [OTHER] },
      ops: { scopes: ['ingest', 'read', 'metrics', 'admin'] },
    });
    t = made.tokens;
    const auth = made.auth;
    tw = await startToolwatch({
      config: {
        auth,
        judge: { enabled: true, model: 'judge-model', sample_rate: 1 },
        alerts: {
          rules: [
            { name: 'per-service', kind: 'error_rate', threshold: 0.01, min_calls: 1, by: ['service'] },
            { name: 'per-tool', kind: 'error_rate', threshold: 0.01, min_calls: 1, by: ['tool'] },
            { name: 'other-team-only', kind: 'error_rate', threshold: 0.01, min_calls: 1, service: OTHER },
          ],
        },
      },
    });
    for (const s of ['checkout', 'checkout-eu', OTHER]) {
      const f = failing(s);
      traces[s] = f.traceId;
      const res = await post(t.ops!, [f.rs]);
      expect(res.statusCode, res.body).toBe(200);
    }
    await tw.services.alerting.evaluate();
  });
  afterAll(async () => {
    await tw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ingest: spans of services the token may not write are rejected through partialSuccess and counted', async () => {
    const before = metricValue(await tw.metrics(), 'toolwatch_ingest_rejected_total', { reason: 'forbidden_service' });
    const res = await post(t.teamA!, [failing('checkout').rs, failing(OTHER).rs, failing('search').rs]);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({
      partialSuccess: {
        rejectedSpans: '2',
        errorMessage: `2 spans of services this token may not write: ${OTHER}, search`,
      },
    });
    const text = await tw.metrics();
    expect(metricValue(text, 'toolwatch_ingest_rejected_total', { reason: 'forbidden_service' })).toBe(before + 2);
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service: 'search' })).toBe(0);
  });

  it('ingest through the real exporter: a restricted token cannot write for another team', async () => {
    const before = metricValue(await tw.metrics(), 'toolwatch_ingest_rejected_total', { reason: 'forbidden_service' });
    const intruder = otelClient(tw.url, { service: 'checkout', headers: bearer(t.teamB!) });
    const own = otelClient(tw.url, { service: OTHER, headers: bearer(t.teamB!) });
    try {
      await agentCalls(intruder, { valid: 3 });
      await agentCalls(own, { valid: 1 });
      await eventually(
        async () =>
          metricValue(await tw.metrics(), 'toolwatch_ingest_rejected_total', { reason: 'forbidden_service' }) ===
          before + 1,
      );
      expect(metricValue(await tw.metrics(), 'toolwatch_tool_calls_total', { service: OTHER, outcome: 'valid' })).toBe(
        1,
      );
      expect(
        metricValue(await tw.metrics(), 'toolwatch_tool_calls_total', { service: 'checkout', outcome: 'valid' }),
      ).toBe(0);
    } finally {
      await intruder.shutdown();
      await own.shutdown();
    }
  });

  it('/api/failures and /api/stats: only the token’s services, even when another is asked for', async () => {
    const services = (items: { service: string }[]) => [...new Set(items.map((i) => i.service))].sort();
    expect(services(JSON.parse((await get(t.teamA!, '/api/failures')).body).items)).toEqual([
      'checkout',
      'checkout-eu',
    ]);
    expect(JSON.parse((await get(t.teamA!, `/api/failures?service=${OTHER}`)).body).items).toEqual([]);
    expect(services(JSON.parse((await get(t.teamB!, '/api/failures')).body).items)).toEqual([OTHER]);
    expect(services(JSON.parse((await get(t.ops!, '/api/failures')).body).items)).toEqual([
      OTHER,
      'checkout',
      'checkout-eu',
    ]);
    expect(services(JSON.parse((await get(t.teamA!, '/api/stats')).body).tools)).toEqual(['checkout', 'checkout-eu']);
    expect(JSON.parse((await get(t.teamA!, `/api/stats?service=${OTHER}`)).body).tools).toEqual([]);
  });

  it('/api/judge and /api/trajectories: the token’s trajectories; runs and calibration (all teams) withheld', async () => {
    const a = JSON.parse((await get(t.teamA!, '/api/judge')).body);
    // checkout and checkout-eu from the set-up, checkout again from the first test.
    expect(a.trajectories).toEqual({ open: 3 });
    expect(a.runs).toEqual([]);
    expect(a.calibration).toBeNull();
    const ops = JSON.parse((await get(t.ops!, '/api/judge')).body);
    expect(ops.trajectories.open).toBeGreaterThan(3);
    expect(ops.calibration).not.toBeNull();
    expect(
      (await tw.app.inject({ url: `/api/trajectories/${traces[OTHER]}`, headers: bearer(t.teamA!) })).statusCode,
    ).toBe(404);
    expect(JSON.parse((await get(t.teamB!, `/api/trajectories/${traces[OTHER]}`)).body).service).toBe(OTHER);
    expect(JSON.parse((await get(t.teamA!, `/api/trajectories/${traces.checkout}`)).body).service).toBe('checkout');
  });

  it('/api/alerts: the token’s alerts and rules; cross-service alerts and outbox totals withheld', async () => {
    const a = JSON.parse((await get(t.teamA!, '/api/alerts')).body);
    expect(a.rules.map((r: { name: string }) => r.name)).toEqual(['per-service', 'per-tool']);
    expect(
      a.alerts.map((x: { rule: string; labels: { service?: string } }) => `${x.rule}:${x.labels.service}`).sort(),
    ).toEqual(['per-service:checkout', 'per-service:checkout-eu']);
    expect(a.outbox).toMatchObject({ pending: null, sent: null, failed: null, recentFailures: [] });
    const ops = JSON.parse((await get(t.ops!, '/api/alerts')).body);
    expect(ops.rules).toHaveLength(3);
    expect(ops.alerts.map((x: { rule: string }) => x.rule)).toEqual(
      expect.arrayContaining(['per-tool', 'other-team-only']),
    );
    expect(typeof ops.outbox.pending).toBe('number');
  });

  it('/api/sources: the token’s calls; the span count (not kept per service) withheld', async () => {
    const [otlp] = JSON.parse((await get(t.teamA!, '/api/sources')).body).sources;
    const text = await tw.metrics();
    const mine = ['checkout', 'checkout-eu'].reduce(
      (s, svc) => s + metricValue(text, 'toolwatch_tool_calls_total', { service: svc, source: 'otlp' }),
      0,
    );
    expect(otlp.counts).toEqual({ spans: null, calls: mine });
    const [all] = JSON.parse((await get(t.ops!, '/api/sources')).body).sources;
    expect(all.counts.calls).toBe(metricValue(text, 'toolwatch_tool_calls_total', { source: 'otlp' }));
    expect(all.counts.spans).toBeGreaterThan(0);
  });

  it('/api/instrumentation: rows of the token’s services only, never the folded row that mixes services', async () => {
    const services = (rows: { service: string }[]) => [...new Set(rows.map((r) => r.service))].sort();
    const a = services(JSON.parse((await get(t.teamA!, '/api/instrumentation')).body).scopes);
    expect(a.length).toBeGreaterThan(0);
    expect(a.every((s) => s === 'checkout' || s === 'checkout-eu')).toBe(true);
    expect(JSON.parse((await get(t.teamA!, `/api/instrumentation?service=${OTHER}`)).body).scopes).toEqual([]);
    expect(services(JSON.parse((await get(t.ops!, '/api/instrumentation')).body).scopes)).toContain(OTHER);
  });

  it('the page: the service picker, tools, failures and alerts of the token’s services only', async () => {
    const page = (await get(t.teamA!, '/')).body;
    expect(page).toContain('checkout-eu');
    expect(page).not.toContain(OTHER);
    const other = (await get(t.teamA!, `/?service=${OTHER}`)).body;
    expect(other).not.toContain(traces[OTHER]);
    expect((await get(t.ops!, '/')).body).toContain(OTHER);
  });
});
