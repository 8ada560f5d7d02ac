/**
 * The instrumentation-coverage core: what looks like an LLM span, bounded top keys, and the report
 * over a mixed stream — every framework fixture plus a framework toolwatch does not read.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { BatchCoverage } from '../../src/instrumentation/batch-coverage.js';
import { CoverageTracker, keyPattern, OTHER, type CoverageRow } from '../../src/instrumentation/coverage.js';
import { isLlmKey, looksLikeLlmSpan } from '../../src/instrumentation/llm-looking.js';
import { TopKeys } from '../../src/instrumentation/top-keys.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { Span } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { Ledger } from '../../src/pipeline/ledger.js';
import { Pipeline } from '../../src/pipeline/pipeline.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { loadDialectFixtures } from '../helpers/dialect-fixtures.js';
import { makeEvent, makeSpan } from '../helpers/spans.js';
import { storeRedactor } from '../../src/redact/stored.js';

const dialects = builtinDialects();

describe('what looks like an LLM or tool span', () => {
  it.each([
    [{ 'gen_ai.system': 'openai' }, true],
    [{ 'llm.acme.request': 'x' }, true],
    [{ 'ai.operationId': 'ai.generateText' }, true],
    [{ 'langfuse.observation.type': 'span' }, true],
    [{ 'gcp.vertex.agent.llm_request': '{}' }, true],
    [{ 'lk.function_tool.name': 'f' }, true],
    [{ model_request_parameters: '{}' }, true],
    [{ 'lk.tts.label': 'x', 'http.method': 'GET' }, false],
    [{ 'gcp.project_id': 'p', ai_model: 'x' }, false],
    [{}, false],
  ])('%j → %s', (attributes, want) => {
    expect(looksLikeLlmSpan(makeSpan(attributes))).toBe(want);
  });

  it.each([
    ['gen_ai.request.model', true],
    ['gcp.vertex.agent.tool_call_args', true],
    ['llm.model_name', true],
    ['langfuse.observation.input', true],
    ['lk.response.function_calls', true],
    ['lk.pii.chat_ctx', true],
    ['ai.toolCall.name', true],
    ['all_messages_events', true],
    ['openinference.span.kind', true],
    ['traceloop.span.kind', true],
    ['pydantic_ai.all_messages', true],
    ['flue.tool.name', true],
    ['mlflow.spanType', true],
    ['model_request_parameters', true],
    ['gen_ai', false],
    // Context copied onto every span of a conversation or trace (Koog's graph nodes, Langfuse's propagation, Logfire).
    ['gen_ai.conversation.id', false],
    ['langfuse.observation.metadata.langgraph_node', false],
    ['langfuse.trace.name', false],
    ['langfuse.session.id', false],
    ['langfuse.user.id', false],
    ['logfire.msg', false],
    ['logfire.span_type', false],
    ['genai.x', false],
    ['gcp.project_id', false],
    ['llmx.y', false],
    ['lk.tts.label', false],
    ['aiohttp.url', false],
    ['mlflowx', false],
    ['http.method', false],
    ['db.system', false],
    ['', false],
  ])('key %s → %s', (key, want) => {
    expect(isLlmKey(key)).toBe(want);
  });

  it('a GenAI event is enough', () => {
    expect(looksLikeLlmSpan(makeSpan({}, { events: [makeEvent('gen_ai.choice', { message: '{}' })] }))).toBe(true);
  });
});

describe('top keys in bounded memory', () => {
  it('keeps at most `capacity` keys and the frequent ones survive a flood of one-offs', () => {
    const top = new TopKeys(4);
    for (let i = 0; i < 1_000; i++) {
      top.add('llm.frequent');
      if (i % 2 === 0) top.add('llm.half');
      top.add(`llm.once.${i}`);
    }
    expect(top.size).toBe(4);
    expect(top.top(2).map((k) => k.key)).toEqual(['llm.frequent', 'llm.half']);
  });

  it('numbered segments become {i}; long keys are cut', () => {
    expect(keyPattern('llm.input_messages.3.message.tool_calls.12.tool_call.id', 200)).toBe(
      'llm.input_messages.{i}.message.tool_calls.{i}.tool_call.id',
    );
    expect(keyPattern('gen_ai.prompt.0', 200)).toBe('gen_ai.prompt.{i}');
    expect(keyPattern('gen_ai.v2x.a', 200)).toBe('gen_ai.v2x.a');
    expect(keyPattern(`llm.${'x'.repeat(500)}`, 50)).toHaveLength(50);
  });
});

describe('coverage tracker bounds', () => {
  it('a key list seen before counts as it did the first time, also after keys were pushed out', () => {
    const t = new CoverageTracker({ keysPerEntry: 3, topKeys: 10 });
    const a = { 'llm.a': 1, 'llm.b.0.x': 1, 'llm.b.1.x': 1, 'http.x': 1 };
    const b = { 'llm.c': 1, 'llm.d': 1 };
    // Each list twice (the second time from what the first remembered), then b pushes a's keys out.
    for (const attrs of [a, a, b, b, a, b, a, a]) t.observeSpan(makeSpan(attrs), undefined);
    const top = new TopKeys(3);
    for (const k of ['llm.a', 'llm.b.{i}.x', 'llm.b.{i}.x', 'llm.a', 'llm.b.{i}.x', 'llm.b.{i}.x']) top.add(k);
    for (const k of ['llm.c', 'llm.d', 'llm.c', 'llm.d']) top.add(k);
    for (const attrs of [a, b, a, a])
      for (const k of Object.keys(attrs)) if (k.startsWith('llm.')) top.add(keyPattern(k, 200));
    expect(t.report()[0]!.topKeys).toEqual(top.top(10));
  });

  it('folds scope × service rows past maxEntries into _other', () => {
    const t = new CoverageTracker({ maxEntries: 3 });
    for (let i = 0; i < 10; i++)
      t.observeSpan(makeSpan({ 'gen_ai.system': 'x' }, { scope: `s${i}`, service: 'svc' }), undefined);
    expect(t.size).toBe(4);
    const other = t.report().find((r) => r.scope === OTHER)!;
    expect(other).toMatchObject({ service: OTHER, spans: 7, llmSpans: 7, unrecognizedSpans: 7 });
  });

  it("one restricted sender opens at most maxEntriesPerBudget rows: another team's later row keeps its name (issue 17, finding 4)", () => {
    const t = new CoverageTracker({ maxEntries: 8, maxEntriesPerBudget: 3 });
    const llm = { 'gen_ai.system': 'x' };
    for (let i = 0; i < 20; i++)
      t.observeSpan(makeSpan(llm, { scope: `s${i}`, service: `noisy-${i}` }), undefined, 'noisy');
    t.observeSpan(makeSpan(llm, { scope: 'openai', service: 'quiet' }), undefined, 'quiet');
    t.observeSpan(makeSpan(llm, { scope: 'openai', service: 'ops' }), undefined);
    const rows = t.report();
    expect(rows.filter((r) => r.service.startsWith('noisy-'))).toHaveLength(3);
    expect(rows.find((r) => r.scope === OTHER)).toMatchObject({ spans: 17 });
    expect(t.report({ service: 'quiet' })).toMatchObject([{ scope: 'openai', spans: 1 }]);
    expect(t.report({ service: 'ops' })).toMatchObject([{ scope: 'openai', spans: 1 }]);
  });

  it('a span a reader recognised is LLM-looking whatever its keys; keys are read only from spans without calls', () => {
    const t = new CoverageTracker();
    // The Vercel AI SDK behind a processor that keeps only operation.name: recognised, no LLM key.
    const plain = makeSpan({ 'operation.name': 'ai.streamText.doStream' });
    expect(dialects.normalizeSpan(plain)).toBeDefined();
    expect(t.observeSpan(plain, dialects.normalizeSpan(plain))).toBe('llm');
    const chat = makeSpan({
      'gen_ai.operation.name': 'chat',
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'f', arguments: '{}' }] },
      ]),
    });
    expect(t.observeSpan(chat, dialects.normalizeSpan(chat))).toBe('llm');
    expect(t.observeSpan(makeSpan({ 'http.method': 'GET' }), undefined)).toBe('other');
    expect(t.observeSpan(makeSpan({ 'llm.acme.x': 1 }), undefined)).toBe('unrecognized');
    expect(t.report()).toEqual([
      expect.objectContaining({
        spans: 4,
        llmSpans: 3,
        unrecognizedSpans: 1,
        llmSpansWithoutCalls: 2,
        topKeys: [{ key: 'llm.acme.x', spans: 1 }],
      }),
    ]);
  });

  it('rows follow the scope, version and service of every span, also when they change within a batch', () => {
    const t = new CoverageTracker();
    const at = (scope: string, scopeVersion: string, service: string) =>
      makeSpan({ 'llm.x': 1 }, { scope, scopeVersion, service });
    for (const s of [
      at('a', '1', 'x'),
      at('a', '1', 'x'),
      at('a', '2', 'x'),
      at('a', '1', 'y'),
      at('b', '1', 'x'),
      at('a', '1', 'x'),
    ])
      t.observeSpan(s, undefined);
    expect(t.report().map((r) => [r.scope, r.scopeVersion, r.service, r.spans])).toEqual([
      ['a', '1', 'x', 3],
      ['a', '1', 'y', 1],
      ['a', '2', 'x', 1],
      ['b', '1', 'x', 1],
    ]);
    expect(t.report({ service: 'y' }).map((r) => r.scope)).toEqual(['a']);
  });

  it('a service filter leaves the folded _other row out (it mixes services)', () => {
    const t = new CoverageTracker({ maxEntries: 1 });
    t.observeSpan(makeSpan({ 'llm.x': 1 }, { scope: 'a', service: 'x' }), undefined);
    t.observeSpan(makeSpan({ 'llm.x': 1 }, { scope: 'b', service: 'x' }), undefined);
    expect(t.report().map((r) => r.scope)).toEqual(['_other', 'a']);
    expect(t.report({ service: 'x' }).map((r) => r.scope)).toEqual(['a']);
  });

  it('never stores attribute values, and clips scope and service names', () => {
    const t = new CoverageTracker({ maxLength: 10 });
    t.observeSpan(
      makeSpan(
        { 'llm.secret': 'sk-live-123', 'llm.other': 'hunter2' },
        { scope: 'a'.repeat(50), service: 'b'.repeat(50) },
      ),
      undefined,
    );
    const json = JSON.stringify(t.report());
    expect(json).not.toContain('sk-live');
    expect(json).not.toContain('hunter2');
    expect(t.report()[0]).toMatchObject({ scope: 'a'.repeat(10), service: 'b'.repeat(10) });
  });
});

/** Spans through a real pipeline (normalize → merge → check → store) that keeps a coverage report. */
async function throughPipeline(
  batches: readonly (readonly Span[])[],
): Promise<{ tracker: CoverageTracker; calls: number }> {
  const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
  const tracker = new CoverageTracker();
  const metrics = createMetrics();
  const clock = { now: 2_000_000_000_000 };
  const pipeline = new Pipeline({
    dialects,
    registry: new ToolRegistry(),
    redactor: storeRedactor('secrets'),
    schemas: new SchemaCache(),
    ledger: new Ledger({ maxTraces: 1_000, maxCallsPerTrace: 1_000, traceTtlMs: 3_600_000 }),
    store,
    metrics,
    labels: new LabelCap(1_000),
    failuresPerToolPerMinute: 100,
    executionGraceMs: 10_000,
    now: () => clock.now,
    coverage: tracker,
  });
  for (const b of batches) await pipeline.ingestSpans(b);
  clock.now += 60_000;
  await pipeline.settle();
  const calls = (await metrics.toolCalls.get()).values.reduce((n, v) => n + v.value, 0);
  await store.close();
  return { tracker, calls };
}

describe('the coverage report over a mixed stream', () => {
  const fixtures = loadDialectFixtures();
  // A framework no reader knows: its own llm.* keys, four model spans, nothing toolwatch can read.
  const acme = [0, 1, 2, 3].map((i) =>
    makeSpan(
      {
        'llm.acme.request': `{"i":${i}}`,
        'llm.acme.tool_request.0.name': 'search',
        'llm.acme.tool_request.0.args': '{"q":"secret"}',
        'http.status_code': 200,
      },
      {
        traceId: `acme${i}`.padEnd(32, '0'),
        spanId: `a${i}`.padEnd(16, '0'),
        scope: 'acme.agents',
        scopeVersion: '0.1.0',
        service: 'acme-app',
      },
    ),
  );
  const spans = [...fixtures.flatMap((f) => f.spans), ...acme];
  let report: CoverageRow[] = [];
  let calls = 0;
  beforeAll(async () => {
    const run = await throughPipeline([...fixtures.map((f) => f.spans), acme]);
    report = run.tracker.report();
    calls = run.calls;
  });
  const row = (scope: string, service?: string) =>
    report.filter((r) => r.scope === scope && (service === undefined || r.service === service));

  it('every span and every counted call is accounted for', () => {
    expect(report.reduce((n, r) => n + r.spans, 0)).toBe(spans.length);
    expect(report.reduce((n, r) => n + r.calls, 0)).toBe(calls);
    expect(calls).toBe(fixtures.reduce((n, f) => n + f.traces.reduce((m, t) => m + t.calls.length, 0), 0));
  });

  it('an unread framework shows up with its LLM span count, no calls, and the keys to look at', () => {
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
  });

  it('a read framework: calls per scope and version, unvalidated by reason', () => {
    expect(row('gcp.vertex.agent')).toEqual([
      expect.objectContaining({
        scopeVersion: '1.12.0',
        service: 'adk-agent',
        spans: 5,
        llmSpans: 4,
        unrecognizedSpans: 0,
        calls: 2,
        unvalidated: {},
      }),
    ]);
    expect(row('livekit-agents')).toEqual([
      expect.objectContaining({
        service: 'livekit-agent',
        spans: 6,
        llmSpans: 6,
        unrecognizedSpans: 0,
        llmSpansWithoutCalls: 0,
        calls: 4,
        unvalidated: { no_schema: 2 },
      }),
    ]);
    const flue = row('@flue/opentelemetry');
    expect(flue.map((r) => [r.scopeVersion, r.calls])).toEqual([
      ['1.0.0-beta.1', 2],
      ['2.0.3', 1],
    ]);
  });

  it('a batch read before its commit (BatchCoverage) counts as its spans one by one do, in the same order', () => {
    // Small bounds, so rows fold into _other and top keys push one another out as the batches go.
    const options = { maxEntries: 12, maxEntriesPerBudget: 5, keysPerEntry: 3, topKeys: 20 };
    const bySpan = new CoverageTracker(options);
    const byBatch = new CoverageTracker(options);
    const batches = [...fixtures.map((f) => f.spans), acme, ...fixtures.map((f) => f.spans)];
    batches.forEach((batch, i) => {
      const budget = i % 3 === 0 ? 'team' : undefined;
      const b = new BatchCoverage();
      const unrecognized = new Map<string, number>();
      for (const span of batch) {
        const facts = dialects.normalizeSpan(span);
        const got = b.add(span, facts);
        expect(bySpan.observeSpan(span, facts, budget)).toBe(got);
        if (got === 'unrecognized') unrecognized.set(span.scope, (unrecognized.get(span.scope) ?? 0) + 1);
      }
      byBatch.observeBatch(b, budget);
      expect([...(b.unrecognizedByScope() ?? [])]).toEqual([...unrecognized]);
      // Calls in between, as the pipeline counts them after a batch's spans.
      for (const t of [bySpan, byBatch])
        t.observeCall({ scope: batch[0]!.scope, scopeVersion: '', service: 'x' }, { outcome: 'valid' }, budget);
    });
    expect(byBatch.report()).toEqual(bySpan.report());
    expect(byBatch.report().some((r) => r.scope === OTHER)).toBe(true);
  });

  it('LLM-looking spans without calls list their keys; spans with calls do not', () => {
    const agno = row('openinference.instrumentation.agno')[0]!;
    expect(agno).toMatchObject({ llmSpans: 4, llmSpansWithoutCalls: 2, calls: 1 });
    expect(agno.topKeys.map((k) => k.key)).toContain('llm.input_messages.{i}.message.content');
    // Keys of spans toolwatch reads calls from are not listed: no proposal or tool key shows up.
    expect(agno.topKeys.map((k) => k.key)).not.toContain('tool.parameters');
  });
});
