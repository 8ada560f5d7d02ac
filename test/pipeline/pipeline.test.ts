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
import { Pipeline, type SpanTap } from '../../src/pipeline/pipeline.js';
import { CoverageTracker } from '../../src/instrumentation/coverage.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { attrs, makeSpan } from '../helpers/spans.js';
import { builtinDialects } from '../../src/normalize/dialects.js';

const T1 = '11111111111111111111111111111111';
const T2 = '22222222222222222222222222222222';
const schema = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};
const defs = JSON.stringify([{ type: 'function', name: 'weather', parameters: schema }]);

function chat(spanId: string, calls: { id?: string; name: string; args: string }[], traceId = T1): Span {
  return makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'm1',
      'gen_ai.tool.definitions': defs,
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          parts: calls.map((c) => ({
            type: 'tool_call',
            ...(c.id ? { id: c.id } : {}),
            name: c.name,
            arguments: c.args,
          })),
        },
      ]),
    },
    { traceId, spanId, startTimeMs: 1_000, endTimeMs: 1_100 },
  );
}

function tool(spanId: string, name: string, id?: string, args?: string, traceId = T1, error = false): Span {
  return makeSpan(
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      ...(id ? { 'gen_ai.tool.call.id': id } : {}),
      ...(args ? { 'gen_ai.tool.call.arguments': args } : {}),
      ...(error ? { 'error.type': 'Boom' } : {}),
    },
    { traceId, spanId, startTimeMs: 1_200, endTimeMs: 1_300, statusCode: error ? 2 : 0 },
  );
}

function oiLlm(spanId: string, calls: { id?: string; name: string; args: string }[]): Span {
  const a: Record<string, unknown> = {
    'openinference.span.kind': 'LLM',
    'llm.model_name': 'm1',
    'llm.tools.0.tool.json_schema': JSON.stringify({
      type: 'function',
      function: { name: 'weather', parameters: schema },
    }),
  };
  calls.forEach((c, k) => {
    if (c.id) a[`llm.output_messages.0.message.tool_calls.${k}.tool_call.id`] = c.id;
    a[`llm.output_messages.0.message.tool_calls.${k}.tool_call.function.name`] = c.name;
    a[`llm.output_messages.0.message.tool_calls.${k}.tool_call.function.arguments`] = c.args;
  });
  return makeSpan(a, { traceId: T1, spanId, startTimeMs: 1_000, endTimeMs: 1_100 });
}

function oiTool(spanId: string, name: string, args: string): Span {
  return makeSpan(
    { 'openinference.span.kind': 'TOOL', 'tool.name': name, 'input.value': args },
    { traceId: T1, spanId, startTimeMs: 1_200, endTimeMs: 1_300 },
  );
}

// --- the other dialects' sightings of one call (see test/fixtures/dialects/ for whole traces) ---

const span = (spanId: string, attributes: Record<string, unknown>, at: number, extra: Partial<Span> = {}): Span =>
  makeSpan(attributes, { traceId: T1, spanId, startTimeMs: at, endTimeMs: at + 100, ...extra });

/** Langfuse SDK generation (LangChain callback): definitions as tool messages, the call in additional_kwargs. */
function lfGeneration(spanId: string, id: string, args: string): Span {
  return span(
    spanId,
    {
      'langfuse.observation.type': 'generation',
      'langfuse.observation.model.name': 'm1',
      'langfuse.observation.input': JSON.stringify([
        { role: 'user', content: 'weather?' },
        { role: 'tool', content: { type: 'function', function: { name: 'weather', parameters: schema } } },
      ]),
      'langfuse.observation.output': JSON.stringify({
        role: 'assistant',
        content: '',
        additional_kwargs: { tool_calls: [{ id, type: 'function', function: { name: 'weather', arguments: args } }] },
      }),
    },
    1_000,
  );
}

function lfTool(spanId: string, args: string): Span {
  return span(
    spanId,
    {
      'langfuse.observation.type': 'tool',
      'langfuse.observation.input': args,
      'langfuse.observation.output': '"sunny"',
    },
    1_200,
    { name: 'weather' },
  );
}

function flueTurn(spanId: string, id: string, args: Record<string, unknown>): Span {
  return span(
    spanId,
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'm1',
      'flue.turn.input': JSON.stringify({
        messages: [],
        tools: [{ name: 'weather', description: '', parameters: schema }],
      }),
      'flue.turn.output': JSON.stringify({
        role: 'assistant',
        content: [{ type: 'toolCall', id, name: 'weather', arguments: args }],
      }),
    },
    1_000,
  );
}

function flueTool(spanId: string, id: string): Span {
  return span(
    spanId,
    { 'flue.tool.name': 'weather', 'flue.tool.call_id': id, 'flue.tool.arguments': '{"city":"Oslo"}' },
    1_200,
  );
}

/** Google ADK: the model's function calls have no id; the tool spans carry ADK's own. */
function adkLlm(spanId: string, calls: { name: string; args: Record<string, unknown> }[]): Span {
  return span(
    spanId,
    {
      'gen_ai.system': 'gcp.vertex.agent',
      'gen_ai.request.model': 'gemini',
      'gcp.vertex.agent.llm_request': JSON.stringify({
        config: {
          tools: [
            {
              function_declarations: [
                {
                  name: 'weather',
                  parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
                },
              ],
            },
          ],
        },
      }),
      'gcp.vertex.agent.llm_response': JSON.stringify({
        content: { role: 'model', parts: calls.map((c) => ({ function_call: c })) },
      }),
    },
    1_000,
  );
}

function adkTool(spanId: string, id: string, args: string): Span {
  return span(
    spanId,
    {
      'gen_ai.system': 'gcp.vertex.agent',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'weather',
      'gen_ai.tool.call.id': id,
      'gcp.vertex.agent.tool_call_args': args,
    },
    1_200,
  );
}

/** Pydantic AI: the agent-run span repeats the run's calls in pydantic_ai.all_messages. */
function pydanticRun(spanId: string, id: string | undefined, args: Record<string, unknown>, newIndex = 1): Span {
  return span(
    spanId,
    {
      'gen_ai.agent.name': 'agent',
      'pydantic_ai.all_messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: 'weather?' }] },
        { role: 'assistant', parts: [{ type: 'tool_call', id, name: 'weather', arguments: args }] },
      ]),
      'pydantic_ai.new_message_index': newIndex,
    },
    900,
    { endTimeMs: 2_000 },
  );
}

function pydanticChat(spanId: string, id: string, args: Record<string, unknown>): Span {
  return span(
    spanId,
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'm1',
      model_request_parameters: JSON.stringify({
        function_tools: [{ name: 'weather', parameters_json_schema: schema }],
        output_tools: [],
      }),
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'tool_call', id, name: 'weather', arguments: args }] },
      ]),
    },
    1_000,
  );
}

/** LiveKit: llm_node knows the offered tool names; the plugin's llm_request repeats the calls without them. */
function lkNode(spanId: string, id: string, name: string): Span {
  return span(
    spanId,
    {
      'lk.function_tools': ['weather'],
      'gen_ai.request.model': 'm1',
      'lk.response.function_calls': JSON.stringify([{ id: 'item_1', call_id: id, name, arguments: '{"city":"Oslo"}' }]),
    },
    1_000,
  );
}

function lkRequest(spanId: string, id: string, name: string): Span {
  return span(
    spanId,
    { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm1', 'lk.llm_metrics': '{}' },
    1_010,
    {
      events: [
        {
          name: 'gen_ai.choice',
          timeMs: 1_100,
          attributes: attrs({
            role: 'assistant',
            tool_calls: [JSON.stringify({ function: { name, arguments: '{"city":"Oslo"}' }, id, type: 'function' })],
          }),
        },
      ],
    },
  );
}

/** Vercel AI SDK tool span that names no tool. */
function vercelTool(spanId: string, id?: string): Span {
  return span(
    spanId,
    { 'ai.operationId': 'ai.toolCall', ...(id ? { 'ai.toolCall.id': id } : {}), 'ai.toolCall.args': '{"city":"Oslo"}' },
    1_200,
    { name: 'ai.toolCall' },
  );
}

function vercelModel(spanId: string, id: string): Span {
  return span(
    spanId,
    {
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.prompt.tools': [JSON.stringify({ type: 'function', name: 'weather', inputSchema: schema })],
      'ai.response.toolCalls': JSON.stringify([{ toolCallId: id, toolName: 'weather', input: { city: 'Oslo' } }]),
    },
    1_000,
    { name: 'ai.generateText.doGenerate' },
  );
}

/** An OpenInference TOOL span whose tool.parameters holds the call's arguments (Agno, ADK, BeeAI). */
function oiToolArgsAsParameters(spanId: string, args: string): Span {
  return span(spanId, { 'openinference.span.kind': 'TOOL', 'tool.name': 'weather', 'tool.parameters': args }, 1_200);
}

type Counts = Partial<Record<'valid' | 'InvalidJson' | 'UnknownName' | 'SchemaMismatch' | 'unvalidated', number>>;

const cases: { name: string; batches: Span[][]; want: Counts; executions: number }[] = [
  {
    name: 'proposal, then tool span, then replay-only span: one count',
    batches: [
      [chat('a1', [{ id: 'c1', name: 'weather', args: '{"city":"Oslo"}' }])],
      [tool('b1', 'weather', 'c1')],
      [chat('a2', [])],
    ],
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
    batches: [
      [
        chat('a1', [
          { id: 'c1', name: 'weather', args: '{"city":"A"}' },
          { id: 'c2', name: 'weather', args: '{"city":"B"}' },
        ]),
        tool('b1', 'weather', 'c1'),
        tool('b2', 'weather', 'c2', undefined, T1, true),
      ],
    ],
    want: { valid: 2 },
    executions: 2,
  },
  {
    name: 'the same call id in two traces is two calls',
    batches: [
      [chat('a1', [{ id: 'c1', name: 'weather', args: '{"city":"A"}' }])],
      [chat('a2', [{ id: 'c1', name: 'weather', args: '{}' }], T2)],
    ],
    want: { valid: 1, SchemaMismatch: 1 },
    executions: 0,
  },
  {
    name: 'a resent batch counts nothing',
    batches: [
      [chat('a1', [{ id: 'c1', name: 'nope', args: '{' }]), tool('b1', 'nope', 'c1')],
      [chat('a1', [{ id: 'c1', name: 'nope', args: '{' }]), tool('b1', 'nope', 'c1')],
    ],
    want: { InvalidJson: 1 },
    executions: 1,
  },
  {
    name: 'OpenInference: id-less TOOL span pairs with the proposal by name and arguments',
    batches: [
      [oiLlm('a1', [{ id: 'call_1', name: 'weather', args: '{"city":"Lima"}' }])],
      [oiTool('b1', 'weather', '{"city": "Lima"}')],
    ],
    want: { valid: 1 },
    executions: 1,
  },
  {
    name: 'OpenInference: id-less TOOL span first, proposal later',
    batches: [
      [oiTool('b1', 'weather', '{"city":"Lima"}')],
      [oiLlm('a1', [{ id: 'call_1', name: 'weather', args: '{"city":"Lima"}' }])],
    ],
    want: { valid: 1 },
    executions: 1,
  },
  {
    name: 'an invented name is UnknownName',
    batches: [[chat('a1', [{ id: 'c1', name: 'wether', args: '{"city":"A"}' }])]],
    want: { UnknownName: 1 },
    executions: 0,
  },
  {
    name: 'Langfuse SDK: generation (definitions as tool messages) and tool observation pair by name and arguments',
    batches: [[lfTool('b1', '{"city":"Oslo"}')], [lfGeneration('a1', 'c1', '{"city":"Oslo"}')]],
    want: { valid: 1 },
    executions: 1,
  },
  {
    name: 'Langfuse SDK generation under an OpenInference LLM span, same call id: one count',
    batches: [
      [lfGeneration('a2', 'c1', '{"city":"Oslo"}')],
      [oiLlm('a1', [{ id: 'c1', name: 'weather', args: '{"city":"Oslo"}' }])],
    ],
    want: { valid: 1 },
    executions: 0,
  },
  {
    name: 'Flue: flue.tool span first, flue.turn.output later',
    batches: [[flueTool('b1', 'toolu_1')], [flueTurn('a1', 'toolu_1', { city: 3 })]],
    want: { SchemaMismatch: 1 },
    executions: 1,
  },
  {
    name: 'Google ADK: id-less proposals pair with the id-carrying tool spans, either order',
    batches: [
      [adkTool('b1', 'adk-1', '{"city":"Oslo"}')],
      [
        adkLlm('a1', [
          { name: 'weather', args: { city: 'Oslo' } },
          { name: 'weather', args: { town: 'Rome' } },
        ]),
      ],
      [adkTool('b2', 'adk-2', '{"town":"Rome"}')],
    ],
    want: { valid: 1, SchemaMismatch: 1 },
    executions: 2,
  },
  {
    name: 'Pydantic AI: the agent run summary alone is counted after the grace period',
    batches: [[pydanticRun('r1', 'c1', { city: 'Oslo' })]],
    want: { unvalidated: 1 },
    executions: 0,
  },
  {
    name: "Pydantic AI: summary first, model span later: one count, classified with the model span's definitions",
    batches: [[pydanticRun('r1', 'c1', { city: 'Oslo' })], [pydanticChat('a1', 'c1', { city: 'Oslo' })]],
    want: { valid: 1 },
    executions: 0,
  },
  {
    name: 'Pydantic AI: model span, tool span and summary of one call: one count',
    batches: [
      [pydanticChat('a1', 'c1', { city: 1 }), tool('b1', 'weather', 'c1')],
      [pydanticRun('r1', 'c1', { city: 1 })],
    ],
    want: { SchemaMismatch: 1 },
    executions: 1,
  },
  {
    name: "Pydantic AI: history before new_message_index is not this run's call",
    batches: [[pydanticRun('r1', 'c1', { city: 'Oslo' }, 2)]],
    want: {},
    executions: 0,
  },
  {
    name: "LiveKit: llm_request before llm_node: one count, with llm_node's offered names",
    batches: [[lkRequest('a2', 'call_1', 'book_table')], [lkNode('a1', 'call_1', 'book_table')]],
    want: { UnknownName: 1 },
    executions: 0,
  },
  {
    name: 'Vercel AI SDK: a nameless tool span pairs with its proposal by id',
    batches: [[vercelTool('b1', 'c1')], [vercelModel('a1', 'c1')]],
    want: { valid: 1 },
    executions: 1,
  },
  {
    name: 'Vercel AI SDK: a nameless tool span with nothing to pair is unvalidated (no_name)',
    batches: [[vercelTool('b1')]],
    want: { unvalidated: 1 },
    executions: 1,
  },
  {
    name: 'OpenInference TOOL span with arguments in tool.parameters pairs with the proposal; the arguments are no schema',
    batches: [
      [oiToolArgsAsParameters('b1', '{"city":"Lima"}')],
      [oiLlm('a1', [{ id: 'call_1', name: 'weather', args: '{"city":"Lima"}' }])],
    ],
    want: { valid: 1 },
    executions: 1,
  },
  {
    name: 'OpenInference TOOL span with arguments in tool.parameters alone: unvalidated, never valid',
    batches: [[oiToolArgsAsParameters('b1', '{"query":"cake type"}')]],
    want: { unvalidated: 1 },
    executions: 1,
  },
];

function makePipeline(
  store: Store,
  clock: { now: number },
  maxLabelValues = 100,
  coverage?: CoverageTracker,
  taps?: SpanTap[],
) {
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
    ...(coverage ? { coverage } : {}),
    ...(taps ? { taps } : {}),
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
  for (const v of (await metrics.toolCalls.get()).values)
    out[v.labels.outcome as keyof Counts] = (out[v.labels.outcome as keyof Counts] ?? 0) + v.value;
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

  it('a call no span names is counted as tool="_unnamed", unvalidated no_name — never under an empty label', async () => {
    const { metrics, store } = await run([[vercelTool('b1')]]);
    const calls = (await metrics.toolCalls.get()).values;
    expect(calls.map((v) => [v.labels.tool, v.labels.outcome, v.value])).toEqual([['_unnamed', 'unvalidated', 1]]);
    expect((await metrics.unvalidated.get()).values.map((v) => [v.labels.reason, v.value])).toEqual([['no_name', 1]]);
    expect((await metrics.toolExecutions.get()).values.map((v) => v.labels.tool)).toEqual(['_unnamed']);
    expect((await store.callCounts({ sinceMs: 0 })).map((r) => r.tool)).toEqual(['_unnamed']);
    await store.close();
  });

  it.each([
    { proposalAfterRestart: true, want: { SchemaMismatch: 1 } },
    { proposalAfterRestart: false, want: { unvalidated: 1 } },
  ])(
    'a tool-span-only call waiting for its proposal survives a restart (proposal after restart: $proposalAfterRestart)',
    async ({ proposalAfterRestart, want }) => {
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
    },
  );

  it('a waiting call whose id is stored under a digest still pairs with its proposal after a restart', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const dir = mkdtempSync(`${(await import('node:os')).tmpdir()}/toolwatch-pending-`);
    const clock = { now: 1_000_000 };
    // Longer than a stored key may be, with a lone surrogate: the row's key is a storable digest.
    const id = `c-${'x'.repeat(2_000)}\ud800`;
    const first = new SqliteStore({ path: `${dir}/db`, synchronous: 'NORMAL' });
    const a = makePipeline(first, clock);
    await a.pipeline.ingestSpans([tool('b1', 'weather', id)]);
    await first.close();

    const second = new SqliteStore({ path: `${dir}/db`, synchronous: 'NORMAL' });
    const [row] = await second.loadPending();
    expect(row!.callKey.length).toBeLessThanOrEqual(256);
    expect(row!.callKey).not.toMatch(/[\ud800-\udfff]/);
    const b = makePipeline(second, clock);
    b.pipeline.restorePending(await second.loadPending());
    await b.pipeline.ingestSpans([chat('a1', [{ id, name: 'weather', args: '{}' }])]);
    clock.now += 60_000;
    await b.pipeline.settle();
    // One call, counted from its proposal; the row is gone (deleted under the same stored key).
    expect(await countsOf(b.metrics)).toEqual({ SchemaMismatch: 1 });
    expect(await second.loadPending()).toHaveLength(0);
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a held call keeps the scope of its tool span across a restart (coverage report)', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const dir = mkdtempSync(`${(await import('node:os')).tmpdir()}/toolwatch-pending-`);
    const clock = { now: 1_000_000 };
    const first = new SqliteStore({ path: `${dir}/db`, synchronous: 'NORMAL' });
    const before = new CoverageTracker();
    const a = makePipeline(first, clock, 100, before);
    const t = tool('b1', 'weather', 'c1', '{"city":"Oslo"}');
    t.scope = 'tools.lib';
    t.scopeVersion = '2.0.0';
    t.service = 'svc';
    await a.pipeline.ingestSpans([t]);
    await first.close();
    expect(before.report()).toEqual([expect.objectContaining({ scope: 'tools.lib', spans: 1, calls: 0 })]);

    const second = new SqliteStore({ path: `${dir}/db`, synchronous: 'NORMAL' });
    const after = new CoverageTracker();
    const b = makePipeline(second, clock, 100, after);
    b.pipeline.restorePending(await second.loadPending());
    clock.now += 60_000;
    await b.pipeline.settle();
    expect(after.report()).toEqual([
      expect.objectContaining({
        scope: 'tools.lib',
        scopeVersion: '2.0.0',
        service: 'svc',
        spans: 0,
        calls: 1,
        unvalidated: { no_schema: 1 },
      }),
    ]);
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an id-less summary call waiting out its grace period still pairs with its tool span after a restart', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const dir = mkdtempSync(`${(await import('node:os')).tmpdir()}/toolwatch-pending-`);
    const clock = { now: 1_000_000 };
    const first = new SqliteStore({ path: `${dir}/db`, synchronous: 'NORMAL' });
    const a = makePipeline(first, clock);
    // No call id anywhere: the summary and the tool span pair by name and arguments.
    await a.pipeline.ingestSpans([pydanticRun('r1', undefined, { city: 'Oslo' })]);
    await first.close();

    const second = new SqliteStore({ path: `${dir}/db`, synchronous: 'NORMAL' });
    const b = makePipeline(second, clock);
    expect(b.pipeline.restorePending(await second.loadPending()).restored).toBe(1);
    await b.pipeline.ingestSpans([tool('b1', 'weather', undefined, '{"city":"Oslo"}')]);
    clock.now += 60_000;
    await b.pipeline.settle();
    // One call (from the summary), one execution: the tool span was not held as a second call.
    expect(await countsOf(b.metrics)).toEqual({ unvalidated: 1 });
    expect((await b.metrics.toolExecutions.get()).values.reduce((n, v) => n + v.value, 0)).toBe(1);
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a persisted pending call carries a version; a row this version cannot read is reported, not counted', async () => {
    const clock = { now: 1_000_000 };
    const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    const a = makePipeline(store, clock);
    await a.pipeline.ingestSpans([tool('b1', 'weather', 'c1')]);
    const [row] = await store.loadPending();
    const doc = JSON.parse(row!.payload) as { call: Record<string, unknown> };
    expect(doc).toMatchObject({
      v: 2,
      source: 'otlp',
      call: { traceId: T1, name: 'weather', fromExecution: true, scope: '', scopeVersion: '' },
    });
    // Version 1 (and no version at all) had no scope: still read.
    const { scope: _s, scopeVersion: _v, ...v1Call } = doc.call;
    const v1 = { ...row!, callKey: 'v1', payload: JSON.stringify({ v: 1, source: 'otlp', call: v1Call }) };
    const legacy = { ...row!, callKey: 'legacy', payload: JSON.stringify({ source: 'otlp', call: v1Call }) };
    const bad = [
      { ...row!, callKey: 'not-json', payload: '{' },
      {
        ...row!,
        callKey: 'no-args',
        payload: JSON.stringify({ v: 2, source: 'otlp', call: { ...doc.call, args: 'x' } }),
      },
      {
        ...row!,
        callKey: 'bad-scope',
        payload: JSON.stringify({ v: 2, source: 'otlp', call: { ...doc.call, scope: 7 } }),
      },
      { ...row!, callKey: 'future', payload: JSON.stringify({ ...doc, v: 3 }) },
    ];
    const b = makePipeline(store, clock);
    const res = b.pipeline.restorePending([row!, v1, legacy, ...bad]);
    expect(res.restored).toBe(3);
    expect(res.unreadable.map((u) => u.callKey)).toEqual(['not-json', 'no-args', 'bad-scope', 'future']);
    await store.close();
  });
});

describe('pipeline: labels of a call are derived once', () => {
  it('after a label overflow, the metric says _other and the stored aggregates keep the real name (issue 17, finding 4)', async () => {
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
    expect(metric).toEqual([
      ['_other', 1],
      ['weather', 1],
    ]);
    expect(stored).toEqual([
      ['forecast', 1],
      ['weather', 1],
    ]);
    await store.close();
  });

  it('_unknown and _unnamed are fixed values: never capped to _other, the same in the metric and the store', async () => {
    const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    const clock = { now: 1_000_000 };
    const { metrics, pipeline } = makePipeline(store, clock, 1);
    await pipeline.ingestSpans([
      chat('a1', [
        { id: 'c1', name: 'weather', args: '{"city":"Lima"}' },
        { id: 'c2', name: 'wether', args: '{}' },
      ]),
      vercelTool('b1'),
    ]);
    clock.now += 60_000;
    await pipeline.settle();
    const metric = (await metrics.toolCalls.get()).values.map((v) => [v.labels.tool, v.labels.outcome, v.value]).sort();
    const stored = (await store.callCounts({ sinceMs: 0 })).map((r) => [r.tool, r.outcome, Number(r.count)]).sort();
    expect(metric).toEqual([
      ['_unknown', 'UnknownName', 1],
      ['_unnamed', 'unvalidated', 1],
      ['weather', 'valid', 1],
    ]);
    expect(stored).toEqual(metric);
    expect((await metrics.toolExecutions.get()).values.map((v) => v.labels.tool)).toEqual(['_unnamed']);
    await store.close();
  });
});

describe('span taps (user feedback attributes)', () => {
  it('read every raw span with the batch and record once it committed; a record that fails fails the batch, and its retry counts nothing twice', async () => {
    const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    const clock = { now: 1_000_000 };
    const seen: { spans: number; committed: number }[] = [];
    let fail = true;
    // Reads each span with the batch; records what it found once the batch committed.
    const tap: SpanTap<number> = {
      read: (_span, found) => (found ?? 0) + 1,
      record: (found) =>
        // What the store holds when the tap records: the batch is committed before it.
        store.callCounts({ sinceMs: 0 }).then((rows) => {
          seen.push({ spans: found ?? 0, committed: rows.reduce((a, r) => a + Number(r.count), 0) });
          if (fail) throw new Error('feedback store unavailable');
        }),
    };
    const quiet: SpanTap = { read: () => undefined, record: () => undefined };
    const { metrics, pipeline } = makePipeline(store, clock, 100, new CoverageTracker(), [quiet, tap]);
    const batch = [
      chat('a1', [{ id: 'c1', name: 'weather', args: '{"city":"Lima"}' }]),
      makeSpan({}, { spanId: 'z1' }),
    ];
    await expect(pipeline.ingestSpans(batch)).rejects.toThrow('feedback store unavailable');
    fail = false;
    // The client's retry of the same spans: the tap runs again, the call is not counted again.
    expect(await pipeline.ingestSpans(batch)).toMatchObject({ calls: 0, duplicateSpans: 1 });
    expect(seen).toEqual([
      { spans: 2, committed: 1 },
      { spans: 2, committed: 1 },
    ]);
    expect((await metrics.toolCalls.get()).values.map((v) => v.value)).toEqual([1]);
    await store.close();
  });
});
