/**
 * Downstream and execution errors end to end: real OpenTelemetry exporter traffic whose tool spans
 * fail with 4xx/5xx — on the tool span itself or on its HTTP client child, exported before, with or
 * after the tool span — classified ok / client_error / server_error / error, with the structural
 * outcome of each executed call; the tool latency histogram and the trajectory histograms exact on
 * /metrics; the same counts in /api/stats.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downstreamTurn, type PlannedCall } from '../helpers/downstream-agent.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient, type OtelClient } from '../helpers/otel.js';

const SERVICE = 'downstream-shop';
const valid = '{"city":"Oslo"}';

let tw: Harness;
let client: OtelClient;
let text = '';
let stats: Record<string, unknown>;

beforeAll(async () => {
  tw = await startToolwatch();
  client = otelClient(tw.url, { service: SERVICE, batchSize: 64 });
  const calls: PlannedCall[] = [
    { id: 'c1', args: valid, http: { status: 200, order: 'before' }, durationMs: 4 },
    { id: 'c2', args: valid, http: { status: 404, order: 'before' }, durationMs: 30 },
    { id: 'c3', args: valid, http: { status: 422, order: 'same' }, durationMs: 80 },
    { id: 'c4', args: valid, http: { status: 503, order: 'after' }, durationMs: 400 },
    // Failed its schema check and then failed downstream: counted once in the combined rate.
    { id: 'c5', args: '{"city":1}', http: { status: 400, order: 'same' }, durationMs: 20 },
    {
      id: 'c6',
      args: valid,
      tool: { attributes: { 'error.type': 'TimeoutError' }, error: 'timed out after 3s' },
      durationMs: 3000,
    },
    { id: 'c7', args: valid, tool: { attributes: { 'http.response.status_code': 429 } }, durationMs: 700 },
    // Known from its tool span alone: unvalidated, its execution waits for the call to be counted.
    { id: 'c8', args: valid, tool: { error: 'boom' }, durationMs: 60, noProposal: true },
  ];
  await downstreamTurn(client, { model: 'gpt-4o', calls, t0: Date.now() - 10_000, tokens: 1234 });
  await client.shutdown();
  // Past every grace period and the trajectory's idle time.
  await tw.services.pipeline.settle(Date.now() + 3_600_000);
  text = await tw.metrics();
  stats = (await (await fetch(`${tw.url}/api/stats?window=1h&service=${SERVICE}`)).json()) as Record<string, unknown>;
}, 60_000);

afterAll(async () => {
  await tw?.close();
});

const exec = (labels: Record<string, string>) =>
  metricValue(text, 'toolwatch_tool_executions_total', { service: SERVICE, tool: 'get_weather', ...labels });

describe('execution status from tool spans and their HTTP client children', () => {
  it.each([
    ['ok', 'valid', 1],
    ['client_error', 'valid', 2], // 404 child exported before its tool span, 422 child in the same export
    ['client_error', 'SchemaMismatch', 1],
    ['server_error', 'valid', 3], // 503 child exported after its tool span, a timeout, 429 on the tool span
    ['error', 'unvalidated', 1],
  ])('%s with call_outcome %s: %i', (status, callOutcome, n) => {
    expect(exec({ status, call_outcome: callOutcome })).toBe(n);
  });

  it('counts every execution once', () => {
    expect(exec({})).toBe(8);
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service: SERVICE })).toBe(8);
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service: SERVICE, outcome: 'SchemaMismatch' })).toBe(1);
  });

  it('tool latency histogram: exact buckets, count and sum', () => {
    const h = (le: string) =>
      metricValue(text, 'toolwatch_tool_execution_duration_seconds_bucket', {
        service: SERVICE,
        tool: 'get_weather',
        le,
      });
    expect([
      h('0.005'),
      h('0.01'),
      h('0.025'),
      h('0.05'),
      h('0.1'),
      h('0.25'),
      h('0.5'),
      h('1'),
      h('2.5'),
      h('5'),
      h('+Inf'),
    ]).toEqual([1, 1, 2, 3, 5, 5, 6, 7, 7, 8, 8]);
    expect(
      metricValue(text, 'toolwatch_tool_execution_duration_seconds_count', { service: SERVICE, tool: 'get_weather' }),
    ).toBe(8);
    expect(
      metricValue(text, 'toolwatch_tool_execution_duration_seconds_sum', { service: SERVICE, tool: 'get_weather' }),
    ).toBeCloseTo(4.294, 5);
  });

  it('the same executions in /api/stats, per tool', () => {
    const tools = stats.tools as {
      tool: string;
      executions?: { total: number; byStatus: Record<string, number>; clientErrorRate: number };
    }[];
    const t = tools.find((x) => x.tool === 'get_weather')!;
    expect(t.executions).toEqual({
      total: 8,
      byStatus: { ok: 1, client_error: 3, server_error: 3, error: 1, tool_error: 0 },
      clientErrorRate: 3 / 8,
    });
  });
});

describe('the trajectory', () => {
  it('histograms exact on /metrics: tool calls, steps, failed calls, tokens, wall time', () => {
    const one = (name: string) => [
      metricValue(text, `${name}_count`, { service: SERVICE }),
      metricValue(text, `${name}_sum`, { service: SERVICE }),
    ];
    expect(one('toolwatch_trajectory_tool_calls')).toEqual([1, 8]);
    expect(one('toolwatch_trajectory_steps')).toEqual([1, 1]);
    // c5 failed its check; c2, c3, c4, c6, c7, c8 failed downstream: each call once.
    expect(one('toolwatch_trajectory_failed_calls')).toEqual([1, 7]);
    expect(one('toolwatch_trajectory_tokens')).toEqual([1, 1234]);
    const [n, seconds] = one('toolwatch_trajectory_duration_seconds');
    expect(n).toBe(1);
    expect(seconds).toBeCloseTo(4.574, 5);
    expect(metricValue(text, 'toolwatch_trajectory_tool_calls_bucket', { service: SERVICE, le: '6' })).toBe(0);
    expect(metricValue(text, 'toolwatch_trajectory_tool_calls_bucket', { service: SERVICE, le: '8' })).toBe(1);
  });

  it('median, p90 and mean per service and per service and model in /api/stats', () => {
    const t = stats.trajectories as { services: Record<string, unknown>[]; models: Record<string, unknown>[] };
    const want = {
      trajectories: 1,
      steps: { median: 1, p90: 1, mean: 1 },
      toolCalls: { median: 8, p90: 8, mean: 8 },
      failedCalls: { median: 7, p90: 7, mean: 7 },
      // Stored in buckets at most 10 % wide: the median is its bucket's upper bound, the mean exact.
      tokens: { median: 1300, p90: 1300, mean: 1234, trajectories: 1 },
      durationSeconds: { median: 4.6, p90: 4.6, mean: 4.574 },
    };
    expect(t.services).toEqual([{ service: SERVICE, ...want }]);
    expect(t.models).toEqual([{ service: SERVICE, model: 'gpt-4o', ...want }]);
  });
});
