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
import { downstreamTurn } from '../helpers/downstream-agent.js';
import { chatResourceSpans } from '../helpers/otlp-json.js';
import { bearer, eventually, tokenConfig, type TestToken } from './tokens.js';

const definitions = JSON.stringify([
  { type: 'function', name: 'lookup', parameters: { type: 'object', properties: { id: { type: 'string' } } } },
]);
const OTHER = 'billing-secret-team';
let n = 0;
/** One chat span of `service` proposing a call with broken JSON (a stored failure), after a user's question. */
function failing(service: string) {
  n++;
  const traceId = n.toString(16).padStart(32, 'a');
  const spanId = n.toString(16).padStart(16, 'b');
  const rs = chatResourceSpans({
    service,
    traceId,
    spanId,
    definitions,
    endMs: Date.now(),
    call: { id: `c${n}`, name: 'lookup', arguments: '{"id": ' },
  });
  const user = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `Where is order ${n}?` }] }]);
  rs.scopeSpans[0]!.spans[0]!.attributes.push({ key: 'gen_ai.input.messages', value: { stringValue: user } });
  return { traceId, rs };
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

  it('/api/export/cases: draft cases of the token’s services only (several globs), in SQL, whatever is asked', async () => {
    const exported = async (token: TestToken, query = '') => {
      const body = JSON.parse((await get(token, `/api/export/cases?format=json${query}`)).body);
      return body.cases as { trace_id: string; metadata: { service: string } }[];
    };
    const a = await exported(t.teamA!);
    expect([...new Set(a.map((c) => c.metadata.service))].sort()).toEqual(['checkout', 'checkout-eu']);
    expect(a.map((c) => c.trace_id)).toEqual(expect.arrayContaining([traces.checkout, traces['checkout-eu']]));
    expect(a.map((c) => c.trace_id)).not.toContain(traces[OTHER]);
    expect(await exported(t.teamA!, `&service=${OTHER}`)).toEqual([]);
    expect(await exported(t.teamA!, `&trace_id=${traces[OTHER]}`)).toEqual([]);
    expect((await exported(t.teamB!)).map((c) => c.metadata.service)).toEqual([OTHER]);
    const all = await exported(t.ops!);
    expect(all.map((c) => c.trace_id)).toEqual(expect.arrayContaining([traces.checkout, traces[OTHER]]));
    // The JSON Lines form (the page's link) is filtered the same way.
    const lines = (await get(t.teamA!, `/api/export/cases?trace_id=${traces[OTHER]}`)).body;
    expect(lines).toBe('');
  });

  it('POST /api/feedback: a restricted ingest token posts for its services’ traces only; all or nothing', async () => {
    const post = (token: TestToken, body: unknown) =>
      tw.app.inject({
        method: 'POST',
        url: '/api/feedback',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        payload: JSON.stringify(body),
      });
    const stored = async (traceId: string) =>
      (await tw.services.feedback.store.traces({ sinceMs: 0, traceIds: [traceId], limit: 10 })).map((f) => f.service);
    const unseen = 'f'.repeat(32);
    const unseenToo = 'e'.repeat(32);

    // A trace toolwatch stored under one of the token's services: no `service` needed.
    expect((await post(t.teamA!, { trace_id: traces['checkout-eu'], value: 'down' })).statusCode).toBe(200);
    expect(await stored(traces['checkout-eu']!)).toEqual(['checkout-eu']);

    // Another team's trace, an unstored trace without a service, a service outside the token's globs:
    // every problem listed, nothing stored — not even the item that was allowed.
    const refused = await post(t.teamA!, [
      { trace_id: traces.checkout, value: -1 },
      { trace_id: traces[OTHER], value: -1, service: 'checkout' },
      { trace_id: unseen, value: -1 },
      { trace_id: unseenToo, value: -1, service: OTHER },
    ]);
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(refused.body).problems.map((p: { index: number }) => p.index)).toEqual([1, 2, 3]);
    expect(await stored(traces.checkout!)).toEqual([]);
    expect(await stored(traces[OTHER]!)).toEqual([]);

    // An unstored trace under a service the token may write is taken; the other team cannot then relabel it.
    expect((await post(t.teamA!, { trace_id: unseen, value: 'up', service: 'checkout-eu' })).statusCode).toBe(200);
    expect(await stored(unseen)).toEqual(['checkout-eu']);
    expect((await post(t.teamB!, { trace_id: unseen, value: -1, service: OTHER })).statusCode).toBe(403);
    expect((await post(t.teamB!, { trace_id: traces.checkout, value: -1 })).statusCode).toBe(403);

    // An admin token (every service) posts for any trace.
    expect((await post(t.ops!, { trace_id: traces[OTHER], value: -1 })).statusCode).toBe(200);
    expect(await stored(traces[OTHER]!)).toEqual([OTHER]);
    // And the export's feedback filter still shows a team its own only.
    const a = JSON.parse((await get(t.teamA!, '/api/export/cases?format=json&feedback=any')).body).cases;
    expect(a.map((c: { trace_id: string }) => c.trace_id)).toEqual([traces['checkout-eu']]);
  });

  it('the page: the service picker, tools, failures and alerts of the token’s services only', async () => {
    const page = (await get(t.teamA!, '/')).body;
    expect(page).toContain('checkout-eu');
    expect(page).not.toContain(OTHER);
    const other = (await get(t.teamA!, `/?service=${OTHER}`)).body;
    expect(other).not.toContain(traces[OTHER]);
    expect((await get(t.ops!, '/')).body).toContain(OTHER);
  });

  it('/api/stats executions, trajectories and by=model, the page’s models section: the token’s services only', async () => {
    // Tool spans refused downstream and completed trajectories, for a team-A service and team B's.
    for (const service of ['checkout', OTHER]) {
      const client = otelClient(tw.url, { service, headers: bearer(t.ops!), batchSize: 64 });
      await downstreamTurn(client, {
        model: `model-of-${service}`,
        t0: Date.now() - 5_000,
        calls: [{ id: `dl-${service}`, args: '{"id":"1"}', http: { status: 404, order: 'same' }, durationMs: 5 }],
      });
      await client.shutdown();
    }
    await tw.services.pipeline.settle(Date.now() + 3_600_000);
    const stats = JSON.parse((await get(t.teamA!, '/api/stats')).body);
    const withExecutions = stats.tools
      .filter((x: { executions?: unknown }) => x.executions)
      .map((x: { service: string }) => x.service);
    expect(withExecutions).toEqual(['checkout']);
    expect(stats.trajectories.services.map((x: { service: string }) => x.service).sort()).toEqual([
      'checkout',
      'checkout-eu',
    ]);
    expect(stats.trajectories.models.every((x: { service: string }) => x.service !== OTHER)).toBe(true);
    const byModel = JSON.parse((await get(t.teamA!, '/api/stats?by=model')).body);
    expect([...new Set(byModel.models.map((x: { service: string }) => x.service))].sort()).toEqual([
      'checkout',
      'checkout-eu',
    ]);
    expect(JSON.parse((await get(t.teamA!, `/api/stats?by=model&service=${OTHER}`)).body).models).toEqual([]);
    expect(byModel.models.map((x: { model: string }) => x.model)).not.toContain(`model-of-${OTHER}`);
    const page = (await get(t.teamA!, '/')).body;
    expect(page).toContain('data-model="model-of-checkout"');
    expect(page).not.toContain(`model-of-${OTHER}`);
    // An unrestricted token sees both.
    const all = JSON.parse((await get(t.ops!, '/api/stats?by=model')).body);
    expect(all.models.map((x: { model: string }) => x.model)).toEqual(
      expect.arrayContaining(['model-of-checkout', `model-of-${OTHER}`]),
    );
  });
});
