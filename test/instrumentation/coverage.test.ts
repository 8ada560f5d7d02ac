/**
 * The instrumentation-coverage core: what looks like an LLM span, bounded top keys, and the report
 * over a mixed stream — every framework fixture plus a framework toolwatch does not read.
 */
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/check/classify.js';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { CoverageTracker, keyPattern, OTHER } from '../../src/instrumentation/coverage.js';
import { looksLikeLlmSpan } from '../../src/instrumentation/llm-looking.js';
import { TopKeys } from '../../src/instrumentation/top-keys.js';
import type { CheckedCall, Span } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/registry.js';
import { Ledger } from '../../src/pipeline/ledger.js';
import { mergeBatch, type CallToCount } from '../../src/pipeline/merge.js';
import { loadDialectFixtures } from '../helpers/dialect-fixtures.js';
import { makeEvent, makeSpan } from '../helpers/spans.js';

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
    [{ 'gcp.project_id': 'p', 'ai_model': 'x' }, false],
    [{}, false],
  ])('%j → %s', (attributes, want) => {
    expect(looksLikeLlmSpan(makeSpan(attributes))).toBe(want);
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
    expect(keyPattern('llm.input_messages.3.message.tool_calls.12.tool_call.id', 200)).toBe('llm.input_messages.{i}.message.tool_calls.{i}.tool_call.id');
    expect(keyPattern('gen_ai.prompt.0', 200)).toBe('gen_ai.prompt.{i}');
    expect(keyPattern('gen_ai.v2x.a', 200)).toBe('gen_ai.v2x.a');
    expect(keyPattern(`llm.${'x'.repeat(500)}`, 50)).toHaveLength(50);
  });
});

describe('coverage tracker bounds', () => {
  it('folds scope × service rows past maxEntries into _other', () => {
    const t = new CoverageTracker({ maxEntries: 3 });
    for (let i = 0; i < 10; i++) t.observeSpan(makeSpan({ 'gen_ai.system': 'x' }, { scope: `s${i}`, service: 'svc' }), undefined);
    expect(t.size).toBe(4);
    const other = t.report().find((r) => r.scope === OTHER)!;
    expect(other).toMatchObject({ service: OTHER, spans: 7, llmSpans: 7, unrecognizedSpans: 7 });
  });

  it('never stores attribute values, and clips scope and service names', () => {
    const t = new CoverageTracker({ maxLength: 10 });
    t.observeSpan(makeSpan({ 'llm.secret': 'sk-live-123', 'llm.other': 'hunter2' }, { scope: 'a'.repeat(50), service: 'b'.repeat(50) }), undefined);
    const json = JSON.stringify(t.report());
    expect(json).not.toContain('sk-live');
    expect(json).not.toContain('hunter2');
    expect(t.report()[0]).toMatchObject({ scope: 'a'.repeat(10), service: 'b'.repeat(10) });
  });
});

/** Spans → counted calls the way the pipeline does it (merge with the one-call-one-count ledger, then check). */
function countCalls(spans: readonly Span[]): CheckedCall[] {
  const ledger = new Ledger({ maxTraces: 1_000, maxCallsPerTrace: 1_000, traceTtlMs: 3_600_000 });
  const registry = new ToolRegistry();
  const schemas = new SchemaCache();
  const facts = spans.map((s) => dialects.normalizeSpan(s)).filter((f) => f !== undefined);
  const merged = mergeBatch(facts, ledger.begin(0), { source: 'otlp', dueMs: 10_000 });
  const check = (c: CallToCount): CheckedCall => {
    const outcome = classify(c, registry, schemas);
    return { source: 'otlp', traceId: c.traceId, spanId: c.spanId, service: c.service, model: c.model, name: c.name, args: c.args, timeMs: c.timeMs, outcome, fromExecution: c.fromExecution };
  };
  return [...merged.calls, ...ledger.takeDue(20_000).map((p) => p.call)].map(check);
}

describe('the coverage report over a mixed stream', () => {
  const fixtures = loadDialectFixtures();
  // A framework no reader knows: its own llm.* keys, four model spans, nothing toolwatch can read.
  const acme = [0, 1, 2, 3].map((i) =>
    makeSpan(
      { 'llm.acme.request': `{"i":${i}}`, 'llm.acme.tool_request.0.name': 'search', 'llm.acme.tool_request.0.args': '{"q":"secret"}', 'http.status_code': 200 },
      { traceId: `acme${i}`.padEnd(32, '0'), spanId: `a${i}`.padEnd(16, '0'), scope: 'acme.agents', scopeVersion: '0.1.0', service: 'acme-app' },
    ),
  );
  const spans = [...fixtures.flatMap((f) => f.spans), ...acme];
  const tracker = new CoverageTracker();
  const calls = countCalls(spans);
  const byKey = new Map(spans.map((s) => [`${s.traceId}/${s.spanId}`, s]));
  tracker.observeBatch(spans, (s) => dialects.normalizeSpan(s), calls, (c) => {
    const s = byKey.get(`${c.traceId}/${c.spanId}`);
    return s && { scope: s.scope, scopeVersion: s.scopeVersion, service: s.service };
  });
  const report = tracker.report();
  const row = (scope: string, service?: string) => report.filter((r) => r.scope === scope && (service === undefined || r.service === service));

  it('every span and every counted call is accounted for', () => {
    expect(report.reduce((n, r) => n + r.spans, 0)).toBe(spans.length);
    expect(report.reduce((n, r) => n + r.calls, 0)).toBe(calls.length);
    expect(calls.length).toBe(fixtures.reduce((n, f) => n + f.traces.reduce((m, t) => m + t.calls.length, 0), 0));
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
      expect.objectContaining({ scopeVersion: '1.12.0', service: 'adk-agent', spans: 5, llmSpans: 4, unrecognizedSpans: 0, calls: 2, unvalidated: {} }),
    ]);
    expect(row('livekit-agents')).toEqual([
      expect.objectContaining({ service: 'livekit-agent', spans: 6, llmSpans: 6, unrecognizedSpans: 0, llmSpansWithoutCalls: 0, calls: 4, unvalidated: { no_schema: 2 } }),
    ]);
    const flue = row('@flue/opentelemetry');
    expect(flue.map((r) => [r.scopeVersion, r.calls])).toEqual([['1.0.0-beta.1', 2], ['2.0.3', 1]]);
  });

  it('LLM-looking spans without calls list their keys; spans with calls do not', () => {
    const agno = row('openinference.instrumentation.agno')[0]!;
    expect(agno).toMatchObject({ llmSpans: 4, llmSpansWithoutCalls: 2, calls: 1 });
    expect(agno.topKeys.map((k) => k.key)).toContain('llm.input_messages.{i}.message.content');
    // Keys of spans toolwatch reads calls from are not listed: no proposal or tool key shows up.
    expect(agno.topKeys.map((k) => k.key)).not.toContain('tool.parameters');
  });
});
