/**
 * One call, one count across batches, table-driven: each case is a sequence of batches of spans
 * (in the order they reach the receiver) and the exact counts by outcome after every grace period.
 */
import { storeRedactor } from '../../src/redact/stored.js';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { Span } from '../../src/model.js';
import { Ledger } from '../../src/pipeline/ledger.js';
import { Pipeline } from '../../src/pipeline/pipeline.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { makeSpan } from '../helpers/spans.js';
import { builtinDialects } from '../../src/normalize/registry.js';

const T1 = '11111111111111111111111111111111';
const T2 = '22222222222222222222222222222222';
const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const defs = JSON.stringify([{ type: 'function', name: 'weather', parameters: schema }]);

function chat(spanId: string, calls: { id?: string; name: string; args: string }[], traceId = T1): Span {
  return makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'm1',
      'gen_ai.tool.definitions': defs,
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: calls.map((c) => ({ type: 'tool_call', ...(c.id ? { id: c.id } : {}), name: c.name, arguments: c.args })) }]),
    },
    { traceId, spanId, startTimeMs: 1_000, endTimeMs: 1_100 },
  );
}

function tool(spanId: string, name: string, id?: string, args?: string, traceId = T1, error = false): Span {
  return makeSpan(
    { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, ...(id ? { 'gen_ai.tool.call.id': id } : {}), ...(args ? { 'gen_ai.tool.call.arguments': args } : {}), ...(error ? { 'error.type': 'Boom' } : {}) },
    { traceId, spanId, startTimeMs: 1_200, endTimeMs: 1_300, statusCode: error ? 2 : 0 },
  );
}

function oiLlm(spanId: string, calls: { id?: string; name: string; args: string }[]): Span {
  const a: Record<string, unknown> = {
    'openinference.span.kind': 'LLM',
    'llm.model_name': 'm1',
    'llm.tools.0.tool.json_schema': JSON.stringify({ type: 'function', function: { name: 'weather', parameters: schema } }),
  };
  calls.forEach((c, k) => {
    if (c.id) a[`llm.output_messages.0.message.tool_calls.${k}.tool_call.id`] = c.id;
    a[`llm.output_messages.0.message.tool_calls.${k}.tool_call.function.name`] = c.name;
    a[`llm.output_messages.0.message.tool_calls.${k}.tool_call.function.arguments`] = c.args;
  });
  return makeSpan(a, { traceId: T1, spanId, startTimeMs: 1_000, endTimeMs: 1_100 });
}

function oiTool(spanId: string, name: string, args: string): Span {
  return makeSpan({ 'openinference.span.kind': 'TOOL', 'tool.name': name, 'input.value': args }, { traceId: T1, spanId, startTimeMs: 1_200, endTimeMs: 1_300 });
}

type Counts = Partial<Record<'valid' | 'InvalidJson' | 'UnknownName' | 'SchemaMismatch' | 'unvalidated', number>>;

const cases: { name: string; batches: Span[][]; want: Counts; executions: number }[] = [
  {
    name: 'proposal, then tool span, then replay-only span: one count',
    batches: [[chat('a1', [{ id: 'c1', name: 'weather', args: '{"city":"Oslo"}' }])], [tool('b1', 'weather', 'c1')], [chat('a2', [])]],
    want: { valid: 1 },
    executions: 1,
  },
  {
    name: 'tool span first (out of order), proposal later: classified from the proposal, once',
    batches: [[tool('b1', 'weather', 'c1')], [chat('a1', [{ id: 'c1', name: 'weather', args: '{"city":1}' }])]],
    want: { SchemaMismatch: 1 },
    executions: 1,
  },
  {
    name: 'tool span alone: counted from it after the grace period',
    batches: [[tool('b1', 'weather', 'c9', '{"city":"Rome"}')]],
    want: { unvalidated: 1 },
    executions: 1,
  },
  {
    name: 'two parallel calls of one tool, both executed',
    batches: [[chat('a1', [{ id: 'c1', name: 'weather', args: '{"city":"A"}' }, { id: 'c2', name: 'weather', args: '{"city":"B"}' }]), tool('b1', 'weather', 'c1'), tool('b2', 'weather', 'c2', undefined, T1, true)]],
    want: { valid: 2 },
    executions: 2,
  },
  {
    name: 'the same call id in two traces is two calls',
    batches: [[chat('a1', [{ id: 'c1', name: 'weather', args: '{"city":"A"}' }])], [chat('a2', [{ id: 'c1', name: 'weather', args: '{}' }], T2)]],
    want: { valid: 1, SchemaMismatch: 1 },
    executions: 0,
  },
  {
    name: 'a resent batch counts nothing',
    batches: [[chat('a1', [{ id: 'c1', name: 'nope', args: '{' }]), tool('b1', 'nope', 'c1')], [chat('a1', [{ id: 'c1', name: 'nope', args: '{' }]), tool('b1', 'nope', 'c1')]],
    want: { InvalidJson: 1 },
    executions: 1,
  },
  {
    name: 'OpenInference: id-less TOOL span pairs with the proposal by name and arguments',
    batches: [[oiLlm('a1', [{ id: 'call_1', name: 'weather', args: '{"city":"Lima"}' }])], [oiTool('b1', 'weather', '{"city": "Lima"}')]],
    want: { valid: 1 },
    executions: 1,
  },
  {
    name: 'OpenInference: id-less TOOL span first, proposal later',
    batches: [[oiTool('b1', 'weather', '{"city":"Lima"}')], [oiLlm('a1', [{ id: 'call_1', name: 'weather', args: '{"city":"Lima"}' }])]],
    want: { valid: 1 },
    executions: 1,
  },
  {
    name: 'an invented name is UnknownName',
    batches: [[chat('a1', [{ id: 'c1', name: 'wether', args: '{"city":"A"}' }])]],
    want: { UnknownName: 1 },
    executions: 0,
  },
];

function makePipeline(store: Store, clock: { now: number }, maxLabelValues = 100) {
  const metrics = createMetrics();
  const pipeline = new Pipeline({
    dialects: builtinDialects(),
    registry: new ToolRegistry(),
    schemas: new SchemaCache(),
    ledger: new Ledger({ maxTraces: 100, maxCallsPerTrace: 100, traceTtlMs: 3_600_000 }),
    store,
    metrics,
    labels: new LabelCap(maxLabelValues),
    failuresPerToolPerMinute: 10,
    redactor: storeRedactor('secrets'),
    executionGraceMs: 10_000,
    now: () => clock.now,
  });
  return { metrics, pipeline };
}

async function run(batches: Span[][]) {
  const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
  const clock = { now: 1_000_000 };
  const { metrics, pipeline } = makePipeline(store, clock);
  for (const b of batches) {
    await pipeline.ingestSpans(b);
    clock.now += 1_000;
  }
  clock.now += 60_000;
  await pipeline.settle();
  return { metrics, store };
}

async function countsOf(metrics: ReturnType<typeof createMetrics>): Promise<Counts> {
  const out: Counts = {};
  for (const v of (await metrics.toolCalls.get()).values) out[v.labels.outcome as keyof Counts] = (out[v.labels.outcome as keyof Counts] ?? 0) + v.value;
  return out;
}

describe('pipeline: one call, one count', () => {
  it.each(cases)('$name', async ({ batches, want, executions }) => {
    const { metrics, store } = await run(batches);
    expect(await countsOf(metrics)).toEqual(want);
    const execs = (await metrics.toolExecutions.get()).values.reduce((n, v) => n + v.value, 0);
    expect(execs).toBe(executions);
    // The store's aggregates agree with the metrics.
    const rows = await store.callCounts({ sinceMs: 0 });
    const stored: Counts = {};
    for (const r of rows) stored[r.outcome] = (stored[r.outcome] ?? 0) + Number(r.count);
    expect(stored).toEqual(want);
    await store.close();
  });

  it.each([
    { proposalAfterRestart: true, want: { SchemaMismatch: 1 } },
    { proposalAfterRestart: false, want: { unvalidated: 1 } },
  ])('a tool-span-only call waiting for its proposal survives a restart (proposal after restart: $proposalAfterRestart)', async ({ proposalAfterRestart, want }) => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const dir = mkdtempSync(`${(await import('node:os')).tmpdir()}/toolwatch-pending-`);
    const clock = { now: 1_000_000 };
    const first = new SqliteStore({ path: `${dir}/db`, synchronous: 'NORMAL' });
    const a = makePipeline(first, clock);
    await a.pipeline.ingestSpans([tool('b1', 'weather', 'c1')]);
    await first.close(); // the process stops inside the grace period

    const second = new SqliteStore({ path: `${dir}/db`, synchronous: 'NORMAL' });
    expect(await second.loadPending()).toHaveLength(1);
    const b = makePipeline(second, clock);
    b.pipeline.restorePending(await second.loadPending());
    if (proposalAfterRestart) await b.pipeline.ingestSpans([chat('a1', [{ id: 'c1', name: 'weather', args: '{}' }])]);
    clock.now += 60_000;
    await b.pipeline.settle();
    expect(await countsOf(b.metrics)).toEqual(want);
    expect(await second.loadPending()).toHaveLength(0);
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a persisted pending call carries a version; a row this version cannot read is reported, not counted', async () => {
    const clock = { now: 1_000_000 };
    const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    const a = makePipeline(store, clock);
    await a.pipeline.ingestSpans([tool('b1', 'weather', 'c1')]);
    const [row] = await store.loadPending();
    expect(JSON.parse(row!.payload)).toMatchObject({ v: 1, source: 'otlp', call: { traceId: T1, name: 'weather', fromExecution: true } });
    const legacy = { ...row!, callKey: 'legacy', payload: JSON.stringify({ ...JSON.parse(row!.payload), v: undefined }) };
    const bad = [
      { ...row!, callKey: 'not-json', payload: '{' },
      { ...row!, callKey: 'no-args', payload: JSON.stringify({ v: 1, source: 'otlp', call: { ...JSON.parse(row!.payload).call, args: 'x' } }) },
      { ...row!, callKey: 'future', payload: JSON.stringify({ ...JSON.parse(row!.payload), v: 2 }) },
    ];
    const b = makePipeline(store, clock);
    const res = b.pipeline.restorePending([row!, legacy, ...bad]);
    expect(res.restored).toBe(2);
    expect(res.unreadable.map((u) => u.callKey)).toEqual(['not-json', 'no-args', 'future']);
    await store.close();
  });
});

describe('pipeline: labels of a call are derived once', () => {
  it('after a label overflow, the metric and the stored aggregates name the same tool', async () => {
    const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    const clock = { now: 1_000_000 };
    // One value per label: the second tool overflows to _other.
    const { metrics, pipeline } = makePipeline(store, clock, 1);
    const both = JSON.stringify([
      { type: 'function', name: 'weather', parameters: schema },
      { type: 'function', name: 'forecast', parameters: schema },
    ]);
    const span = chat('a1', [
      { id: 'c1', name: 'weather', args: '{"city":"Lima"}' },
      { id: 'c2', name: 'forecast', args: '{"city":"Lima"}' },
    ]);
    span.attributes['gen_ai.tool.definitions'] = both;
    await pipeline.ingestSpans([span]);
    const metric = (await metrics.toolCalls.get()).values.map((v) => [v.labels.tool, v.value]).sort();
    const stored = (await store.callCounts({ sinceMs: 0 })).map((r) => [r.tool, Number(r.count)]).sort();
    expect(metric).toEqual([['_other', 1], ['weather', 1]]);
    expect(stored).toEqual(metric);
    await store.close();
  });
});
