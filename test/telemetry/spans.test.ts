/**
 * Self-telemetry through the real OpenTelemetry Node SDK with its in-memory exporter: one real
 * toolwatch (socket, SQLite) fed by the real OTel exporter, its judge pointed at the local OpenAI
 * stand-in and its Langfuse source at the local Langfuse stand-in. Asserts the spans an operator
 * gets — ingest batch, alerts evaluate, judge run / judge request, langfuse sync window — with their
 * attributes and parents; and that a batch of toolwatch's own spans is not traced.
 */
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startTelemetry, type Telemetry } from '../../src/telemetry/sdk.js';
import { TRACER_NAME } from '../../src/telemetry/tracing.js';
import { agentCalls } from '../alerts/helpers.js';
import { startFakeLangfuse, type FakeLangfuse } from '../fakes/langfuse.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { agentTurn } from '../helpers/agent.js';
import { otelClient } from '../helpers/otel.js';
import { chatResourceSpans } from '../helpers/otlp-json.js';
import { EXPECTED, seedTraces } from '../sources/langfuse/seed.js';

const mem = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor(mem);
let telemetry: Telemetry;
let tw: Harness;
let openai: FakeOpenAI;
let langfuse: FakeLangfuse;

const named = (name: string) => mem.getFinishedSpans().filter((s) => s.name === name);
/** Spans are exported once the resource's asynchronous attributes (host, process) resolved. */
const flushed = () => processor.forceFlush();
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

beforeAll(async () => {
  openai = await startFakeOpenAI();
  langfuse = await startFakeLangfuse();
  langfuse.observations.push(...seedTraces(Date.now() - 40 * 60_000));
  const env = {
    JUDGE_API_KEY: 'k',
    LANGFUSE_PUBLIC_KEY: langfuse.publicKey,
    LANGFUSE_SECRET_KEY: langfuse.secretKey,
    LANGFUSE_HOST: langfuse.url,
  };
  const config = loadConfig({
    cwd: '/tmp',
    env,
    overrides: { telemetry: { enabled: true, service_name: 'toolwatch-under-test' } },
  });
  expect(config.telemetry).toMatchObject({
    enabled: true,
    reason: 'telemetry.enabled',
    serviceName: 'toolwatch-under-test',
  });
  telemetry = await startTelemetry(config.telemetry, { log: createLogger('silent'), spanProcessors: [processor] });
  tw = await startToolwatch({
    env,
    config: {
      telemetry: { enabled: true },
      dedupe: { execution_grace: '100ms' },
      judge: {
        enabled: true,
        base_url: openai.baseUrl,
        model: 'judge-model-1',
        sample_rate: 1,
        idle: '1ms',
        timeout: '2s',
        concurrency: 2,
      },
      alerts: { interval: '1h', rules: [{ name: 'errors', kind: 'error_rate', threshold: 0.1, min_calls: 1 }] },
      langfuse: {
        enabled: true,
        schedule: '0 0 1 1 *',
        page_size: 5,
        lag: '1m',
        max_window: '10m',
        initial_lookback: '45m',
      },
    },
    services: { tracer: telemetry.tracer!, judgeCompleteEveryMs: 0 },
  });
});

afterAll(async () => {
  await tw?.close();
  await telemetry?.shutdown();
  await openai?.close();
  await langfuse?.close();
});

describe('self-telemetry spans (in-memory exporter)', () => {
  it('an ingest batch: spans, calls, outcome counts, store commit time; scope and service name', async () => {
    const agent = otelClient(tw.url, { service: 'weather-agent', batchSize: 100 });
    agentTurn(agent.tracer, 't1');
    await agent.flush();
    await agent.shutdown();
    await flushed();
    const [batch, ...more] = named('ingest batch');
    expect(more).toEqual([]);
    expect(batch!.attributes).toMatchObject({
      'toolwatch.source': 'otlp',
      'toolwatch.spans': 5,
      'toolwatch.calls': 4,
      'toolwatch.failures': 3,
      'toolwatch.executions': 2,
      'toolwatch.duplicate_spans': 0,
      'toolwatch.calls.valid': 1,
      'toolwatch.calls.InvalidJson': 1,
      'toolwatch.calls.UnknownName': 1,
      'toolwatch.calls.SchemaMismatch': 1,
      'toolwatch.calls.unvalidated': 0,
    });
    expect(batch!.attributes['toolwatch.store.commit_ms']).toBeGreaterThan(0);
    expect(batch!.instrumentationScope.name).toBe(TRACER_NAME);
    expect(batch!.resource.attributes['service.name']).toBe('toolwatch-under-test');
    expect(parentOf(batch!)).toBeUndefined();
  });

  it("a batch of toolwatch's own spans is counted but not traced (no loop through its own exporter)", async () => {
    await flushed();
    const before = named('ingest batch').length;
    const received = metricValue(await tw.metrics(), 'toolwatch_spans_received_total', { source: 'otlp' });
    const own = chatResourceSpans({
      service: 'toolwatch',
      traceId: 'ab'.repeat(16),
      spanId: 'cd'.repeat(8),
      definitions: '[]',
      call: { id: 'x', name: 'y', arguments: '{}' },
      endMs: Date.now(),
    });
    const scoped = { ...own, scopeSpans: own.scopeSpans.map((s) => ({ ...s, scope: { name: TRACER_NAME } })) };
    const res = await fetch(`${tw.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [scoped] }),
    });
    expect(res.status).toBe(200);
    expect(metricValue(await tw.metrics(), 'toolwatch_spans_received_total', { source: 'otlp' })).toBe(received + 1);
    await flushed();
    expect(named('ingest batch').length).toBe(before);
  });

  it('an alert evaluation', async () => {
    await tw.services.alerting.evaluate();
    await flushed();
    const [span] = named('alerts evaluate');
    expect(span!.attributes).toMatchObject({
      'toolwatch.alerts.rules': 1,
      'toolwatch.alerts.firing': 1,
      'toolwatch.alerts.messages': 1,
      'toolwatch.alerts.rule_errors': 0,
    });
  });

  it('a judge run and each judge request, the requests children of the run', async () => {
    const agent = otelClient(tw.url, { service: 'weather-agent', batchSize: 100 });
    await agentCalls(agent, { valid: 2 });
    await agent.shutdown();
    await new Promise((r) => setTimeout(r, 5)); // past judge.idle
    const summary = await tw.services.judge.job!.run();
    // The agent turns of the first test and this one, and the posted chat span of the second test.
    expect(summary.judged).toBe(3);
    await flushed();
    const [run] = named('judge run');
    expect(run!.attributes).toMatchObject({
      'toolwatch.judge.status': 'ok',
      'toolwatch.judge.judged': 3,
      'toolwatch.judge.model': 'judge-model-1',
      'toolwatch.judge.left_pending': 0,
    });
    const requests = named('judge request');
    expect(requests).toHaveLength(3);
    for (const r of requests) {
      expect(parentOf(r)).toBe(run!.spanContext().spanId);
      expect(r.spanContext().traceId).toBe(run!.spanContext().traceId);
      expect(r.attributes).toMatchObject({
        'toolwatch.judge.outcome': 'verdict',
        'toolwatch.judge.reached_goal': true,
      });
      expect(r.attributes['toolwatch.judge.trace_id']).toMatch(/^[0-9a-f]{32}$/);
      expect(r.attributes['toolwatch.judge.input_tokens']).toBeGreaterThan(0);
    }
  });

  it('a Langfuse sync window, its ingest batches its children', async () => {
    const res = await tw.services.langfuse!.source.runOnce();
    await flushed();
    const windows = named('langfuse sync window');
    expect(windows.length).toBe(res.windows);
    expect(windows.length).toBeGreaterThan(1);
    const sum = (k: string) => windows.reduce((n, w) => n + Number(w.attributes[k]), 0);
    expect(sum('toolwatch.langfuse.observations')).toBe(res.observations);
    expect(windows[0]!.attributes['toolwatch.langfuse.api']).toBe('v2');
    expect(Date.parse(String(windows[0]!.attributes['toolwatch.langfuse.to']))).toBeGreaterThan(
      Date.parse(String(windows[0]!.attributes['toolwatch.langfuse.from'])),
    );
    const batches = named('ingest batch').filter((b) => b.attributes['toolwatch.source'] === 'langfuse');
    expect(batches.length).toBeGreaterThan(0);
    const windowIds = new Set(windows.map((w) => w.spanContext().spanId));
    for (const b of batches) expect(windowIds.has(parentOf(b)!)).toBe(true);
    // Every call the windows took went through their batches (the tool-only call waits out its grace period).
    const counted = batches.reduce((n, b) => n + Number(b.attributes['toolwatch.calls']), 0);
    expect(counted).toBe(sum('toolwatch.calls'));
    expect(counted).toBe(Object.values(EXPECTED).reduce((a, b) => a + b, 0) - EXPECTED.unvalidated);
  });
});
