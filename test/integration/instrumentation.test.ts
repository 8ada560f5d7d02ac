/**
 * The instrumentation-coverage report through the real app: every framework fixture
 * (test/fixtures/dialects/), a framework toolwatch does not read, and a tool span whose call is
 * counted only after its grace period, posted over OTLP/JSON to a running toolwatch. Asserted on
 * GET /api/instrumentation and, exactly, on toolwatch_spans_unrecognized_total in /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoverageRow } from '../../src/instrumentation/coverage.js';
import type { InstrumentationReport } from '../../src/queries/instrumentation.js';
import { loadDialectFixtures } from '../helpers/dialect-fixtures.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';

const NOW = Date.now();
const str = (v: string) => ({ stringValue: v });
const attrs = (o: Record<string, string | number>) =>
  Object.entries(o).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : str(v) }));

function request(service: string, scope: { name: string; version?: string }, spans: object[]) {
  return {
    resourceSpans: [{ resource: { attributes: attrs({ 'service.name': service }) }, scopeSpans: [{ scope, spans }] }],
  };
}

function span(traceId: string, spanId: string, name: string, a: Record<string, string | number>) {
  return {
    traceId,
    spanId,
    name,
    kind: 1,
    startTimeUnixNano: String((NOW - 1_000) * 1e6),
    endTimeUnixNano: String(NOW * 1e6),
    attributes: attrs(a),
  };
}

/** A framework no reader knows: its own llm.* keys on four model spans (and a secret in a value). */
const acme = request(
  'acme-app',
  { name: 'acme.agents', version: '0.1.0' },
  [0, 1, 2, 3].map((i) =>
    span(`ac${i}`.padEnd(32, '0'), `a${i}`.padEnd(16, '0'), 'acme.generate', {
      'llm.acme.request': `{"i":${i}}`,
      'llm.acme.tool_request.0.name': 'search',
      'llm.acme.tool_request.0.args': '{"q":"sk-live-secret"}',
      'http.status_code': 200,
    }),
  ),
);

/** Plain HTTP spans of another instrumentation in the same service: counted, never LLM-looking. */
const http = request('acme-app', { name: '@opentelemetry/instrumentation-http', version: '0.223.1' }, [
  span('ac0'.padEnd(32, '0'), 'e0'.padEnd(16, '0'), 'GET', {
    'http.request.method': 'GET',
    'url.full': 'https://api.example/x',
  }),
]);

/** A tool span whose proposal never comes: counted from the tool span after the grace period. */
const lateTool = request('late-svc', { name: 'late.tools', version: '3.1.0' }, [
  span('1a7e'.padEnd(32, '0'), 'b1'.padEnd(16, '0'), 'execute_tool lookup', {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'lookup',
    'gen_ai.tool.call.id': 'call_late',
    'gen_ai.tool.call.arguments': '{"id":1}',
  }),
]);

const fixtures = loadDialectFixtures();

async function post(tw: Harness, body: object): Promise<void> {
  const res = await fetch(`${tw.url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  expect(await res.json(), JSON.stringify(body).slice(0, 200)).toEqual({});
}

describe('GET /api/instrumentation and toolwatch_spans_unrecognized_total over a mixed stream', () => {
  let tw: Harness;
  let report: InstrumentationReport;
  let metrics = '';
  const row = (scope: string, service?: string): CoverageRow[] =>
    report.scopes.filter((r) => r.scope === scope && (service === undefined || r.service === service));

  beforeAll(async () => {
    tw = await startToolwatch();
    for (const f of fixtures) await post(tw, f.request);
    await post(tw, acme);
    await post(tw, http);
    await post(tw, lateTool);
    // Before the grace period ends the late call is not counted anywhere yet.
    const before = (await tw.app.inject('/api/instrumentation?service=late-svc')).json<InstrumentationReport>();
    expect(before.scopes).toEqual([expect.objectContaining({ scope: 'late.tools', spans: 1, calls: 0 })]);
    await tw.services.pipeline.settle(Date.now() + 3_600_000);
    const res = await tw.app.inject('/api/instrumentation');
    expect(res.statusCode).toBe(200);
    report = res.json<InstrumentationReport>();
    metrics = await tw.metrics();
  }, 60_000);

  afterAll(async () => {
    await tw?.close();
  });

  it('accounts for every span received and every call counted', () => {
    const sent = fixtures.reduce((n, f) => n + f.spans.length, 0) + 4 + 1 + 1;
    expect(report.scopes.reduce((n, r) => n + r.spans, 0)).toBe(sent);
    expect(metricValue(metrics, 'toolwatch_spans_received_total', { source: 'otlp' })).toBe(sent);
    expect(report.scopes.reduce((n, r) => n + r.calls, 0)).toBe(metricValue(metrics, 'toolwatch_tool_calls_total'));
    expect(report).toMatchObject({ countsSince: 'process start', limits: { rows: 256, keysPerRow: 64, topKeys: 20 } });
    expect(Date.parse(report.since)).toBeLessThanOrEqual(Date.now());
  });

  it('an unread framework: its LLM-looking spans, no calls, and the keys to look at — never a value', () => {
    expect(row('acme.agents')).toEqual([
      {
        scope: 'acme.agents',
        scopeVersion: '0.1.0',
        service: 'acme-app',
        spans: 4,
        llmSpans: 4,
        unrecognizedSpans: 4,
        llmSpansWithoutCalls: 4,
        calls: 0,
        unvalidated: {},
        topKeys: [
          { key: 'llm.acme.request', spans: 4 },
          { key: 'llm.acme.tool_request.{i}.args', spans: 4 },
          { key: 'llm.acme.tool_request.{i}.name', spans: 4 },
        ],
      },
    ]);
    expect(row('@opentelemetry/instrumentation-http')).toEqual([
      expect.objectContaining({ service: 'acme-app', spans: 1, llmSpans: 0, calls: 0, topKeys: [] }),
    ]);
    expect(JSON.stringify(report)).not.toContain('sk-live-secret');
  });

  it('read frameworks: calls per scope, version and service; unvalidated by reason', () => {
    expect(row('gcp.vertex.agent')).toEqual([
      expect.objectContaining({
        scopeVersion: '1.12.0',
        service: 'adk-agent',
        spans: 5,
        unrecognizedSpans: 0,
        calls: 2,
        unvalidated: {},
      }),
    ]);
    expect(row('livekit-agents')).toEqual([
      expect.objectContaining({
        scopeVersion: '',
        service: 'livekit-agent',
        spans: 6,
        llmSpans: 6,
        llmSpansWithoutCalls: 0,
        calls: 4,
        unvalidated: { no_schema: 2 },
      }),
    ]);
    expect(row('@flue/opentelemetry').map((r) => [r.scopeVersion, r.calls])).toEqual([
      ['1.0.0-beta.1', 2],
      ['2.0.3', 1],
    ]);
    // Five OpenInference instrumentations in one fixture, one row each.
    expect(
      report.scopes.filter((r) => r.scope.startsWith('openinference.instrumentation.')).length,
    ).toBeGreaterThanOrEqual(5);
  });

  it('a call counted after its grace period is attributed to the scope of its tool span', () => {
    expect(row('late.tools')).toEqual([
      expect.objectContaining({
        scopeVersion: '3.1.0',
        service: 'late-svc',
        spans: 1,
        llmSpans: 1,
        llmSpansWithoutCalls: 0,
        calls: 1,
        unvalidated: { no_schema: 1 },
      }),
    ]);
  });

  it('toolwatch_spans_unrecognized_total counts exactly the unrecognised LLM-looking spans, per scope', () => {
    expect(metrics).toContain('toolwatch_spans_unrecognized_total{scope="acme.agents"} 4\n');
    const byScope = new Map<string, number>();
    for (const r of report.scopes)
      if (r.unrecognizedSpans > 0) byScope.set(r.scope, (byScope.get(r.scope) ?? 0) + r.unrecognizedSpans);
    const series = metrics.split('\n').filter((l) => l.startsWith('toolwatch_spans_unrecognized_total{'));
    expect(series).toHaveLength(byScope.size);
    for (const [scope, n] of byScope)
      expect(metricValue(metrics, 'toolwatch_spans_unrecognized_total', { scope }), scope).toBe(n);
  });

  it('?service= keeps one service; unknown parameters are refused', async () => {
    const one = (await tw.app.inject('/api/instrumentation?service=acme-app')).json<InstrumentationReport>();
    expect(one.scopes.map((r) => r.scope).sort()).toEqual(['@opentelemetry/instrumentation-http', 'acme.agents']);
    const none = (await tw.app.inject('/api/instrumentation?service=nobody')).json<InstrumentationReport>();
    expect(none.scopes).toEqual([]);
    expect((await tw.app.inject('/api/instrumentation?scope=x')).statusCode).toBe(400);
  });
});

describe('toolwatch_spans_unrecognized_total is label-capped', () => {
  it('scopes past metrics.max_label_values are counted under scope="_other"', async () => {
    const tw = await startToolwatch({ config: { metrics: { max_label_values: 2 } } });
    try {
      for (const [i, name] of ['s1', 's2', 's3', 's4'].entries()) {
        await post(
          tw,
          request('svc', { name }, [span(`${i + 1}`.padEnd(32, 'f'), 'a1'.padEnd(16, '0'), 'x', { 'llm.acme.x': 1 })]),
        );
      }
      const text = await tw.metrics();
      const series = text.split('\n').filter((l) => l.startsWith('toolwatch_spans_unrecognized_total{'));
      expect(series).toEqual([
        'toolwatch_spans_unrecognized_total{scope="s1"} 1',
        'toolwatch_spans_unrecognized_total{scope="s2"} 1',
        'toolwatch_spans_unrecognized_total{scope="_other"} 2',
      ]);
      expect(metricValue(text, 'toolwatch_label_overflow_total', { label: 'scope' })).toBe(2);
      // The report keeps every scope (its own bound is 256 rows).
      const rep = (await tw.app.inject('/api/instrumentation')).json<InstrumentationReport>();
      expect(rep.scopes.map((r) => r.scope).sort()).toEqual(['s1', 's2', 's3', 's4']);
    } finally {
      await tw.close();
    }
  });
});
