/**
 * Failed executions as problems, and what problems cost, through the real readers, pipeline and
 * store on both engines: each failed execution (client_error, server_error, error, tool_error) is
 * filed under its own signature in the same write as its execution count, so a problem's
 * occurrences equal the failed executions in execution_minutes (toolwatch_tool_executions_total),
 * under resends; a tool span whose result reports failure (MCP isError) counts as `tool_error`; the
 * repair turns after a failure (until a valid call or a succeeding execution of the same tool) are
 * summed per problem with their tokens and wall time when the trajectory completes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { TrajectoryTracker } from '../../src/efficiency/tracker.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { Span } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { Ledger } from '../../src/pipeline/ledger.js';
import { Pipeline } from '../../src/pipeline/pipeline.js';
import { costRows, priceCost } from '../../src/problems/cost.js';
import { ProblemRecorder } from '../../src/problems/record.js';
import { signatureOf } from '../../src/problems/signature.js';
import { listProblems, problemExamples } from '../../src/problems/store.js';
import { storeRedactor } from '../../src/redact/stored.js';
import { storeEngines } from '../helpers/engines.js';
import { makeSpan } from '../helpers/spans.js';

const T0 = 1_700_000_000_000;
const schema = { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] };
const defs = JSON.stringify([{ type: 'function', name: 'refund', parameters: schema }]);

const trace = (n: number) => n.toString(16).padStart(32, '0');
const span = (n: number, k: number) => (n * 100 + k).toString(16).padStart(16, '0');

/** A model step at [start, start + 100] proposing the calls, with tokens. */
function step(n: number, k: number, start: number, calls: { id: string; args: string }[], tokens: [number, number]) {
  return makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4.1',
      'gen_ai.tool.definitions': defs,
      'gen_ai.usage.input_tokens': tokens[0],
      'gen_ai.usage.output_tokens': tokens[1],
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          parts: calls.length
            ? calls.map((c) => ({ type: 'tool_call', id: c.id, name: 'refund', arguments: c.args }))
            : [{ type: 'text', content: 'done' }],
        },
      ]),
    },
    { traceId: trace(n), spanId: span(n, k), startTimeMs: T0 + start, endTimeMs: T0 + start + 100, service: 'shop' },
  );
}

/** The tool span of a call at [start, start + 50]. */
function tool(
  n: number,
  k: number,
  start: number,
  id: string,
  extra: Record<string, unknown> = {},
  statusCode: 0 | 2 = 0,
) {
  return makeSpan(
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'refund',
      'gen_ai.tool.call.id': id,
      'gen_ai.tool.call.arguments': '{"amount":1}',
      ...extra,
    },
    {
      traceId: trace(n),
      spanId: span(n, k),
      startTimeMs: T0 + start,
      endTimeMs: T0 + start + 50,
      service: 'shop',
      statusCode,
    },
  );
}

function httpChild(n: number, k: number, parentK: number, status: number): Span {
  return makeSpan(
    { 'http.request.method': 'POST', 'http.response.status_code': status },
    {
      traceId: trace(n),
      spanId: span(n, k),
      parentSpanId: span(n, parentK),
      kind: 3,
      statusCode: 2,
      startTimeMs: T0 + 1,
      endTimeMs: T0 + 2,
      service: 'shop',
    },
  );
}

/** Four trajectories: 404 then repaired, MCP isError never repaired, a 503 child, a SchemaMismatch then repaired. */
function traces(): Span[] {
  return [
    // 1: the tool's own span says 404; the retry's execution succeeds.
    step(1, 1, 0, [{ id: 'a', args: '{"amount":1}' }], [100, 10]),
    tool(1, 2, 150, 'a', { 'http.response.status_code': 404, 'error.type': '404' }, 2),
    step(1, 3, 300, [{ id: 'b', args: '{"amount":2}' }], [200, 20]),
    tool(1, 4, 450, 'b'),
    step(1, 5, 600, [], [300, 30]),
    // 2: OK span, MCP result with isError: a tool_error; the agent gives up.
    step(2, 1, 0, [{ id: 'a', args: '{"amount":1}' }], [100, 10]),
    tool(2, 2, 150, 'a', {
      'gen_ai.tool.call.result':
        '{"content":[{"type":"text","text":"refund service says: order closed"}],"isError":true}',
    }),
    step(2, 3, 300, [], [400, 40]),
    // 3: the HTTP client inside the tool got a 503; the tool span itself says nothing.
    step(3, 1, 0, [{ id: 'a', args: '{"amount":1}' }], [100, 10]),
    httpChild(3, 9, 2, 503),
    tool(3, 2, 150, 'a'),
    // 4: a call without amount, then a valid one.
    step(4, 1, 0, [{ id: 'a', args: '{}' }], [100, 10]),
    step(4, 2, 300, [{ id: 'b', args: '{"amount":3}' }], [50, 5]),
  ];
}

let dispose: (() => Promise<void>) | undefined;
afterEach(async () => {
  await dispose?.();
  dispose = undefined;
});

describe.each(storeEngines)('execution problems and repair costs on $name', (engine) => {
  it.skipIf(engine.skip)('filed exactly once per failed execution, tool_error included; repairs costed', async () => {
    const opened = await engine.open();
    dispose = opened.dispose;
    const store = opened.store;
    const clock = { now: T0 + 10_000 };
    const redactor = storeRedactor('secrets');
    const metrics = createMetrics();
    const labels = new LabelCap(100);
    const pipeline = new Pipeline({
      dialects: builtinDialects(),
      registry: new ToolRegistry(),
      schemas: new SchemaCache(),
      ledger: new Ledger({ maxTraces: 1000, maxCallsPerTrace: 100, traceTtlMs: 3_600_000 }),
      store,
      metrics,
      labels,
      failuresPerToolPerMinute: 100,
      redactor,
      executionGraceMs: 10_000,
      trajectories: new TrajectoryTracker({ idleMs: 60_000, maxTraces: 100 }, (m) => labels.value('model', m)),
      now: () => clock.now,
      counted: new ProblemRecorder({ sql: store.sql, redactor, maxPerService: 100 }),
    });
    const spans = traces();
    await pipeline.ingestSpans(spans);
    await pipeline.settle();
    await pipeline.ingestSpans(spans); // resent: nothing counted twice
    await pipeline.ingestSpans([...spans].reverse());
    await pipeline.settle();

    const executions = (await metrics.toolExecutions.get()).values.map((v) => `${v.labels.status}=${v.value}`).sort();
    expect(executions).toEqual(['client_error=1', 'ok=1', 'server_error=1', 'tool_error=1']);

    const problems = await listProblems(store.sql, 'shop');
    const exec = problems.filter((p) => p.outcome === 'execution');
    expect(exec.map((p) => [p.parts, p.occurrences]).sort()).toEqual([
      [['client_error', 'http:404'], 1],
      [['http:503', 'server_error'], 1],
      [['tool_error', 'type:isError'], 1],
    ]);
    // Exact: the execution problems' occurrences are the failed executions stored.
    const failed = await store.sql.all<{ n: number | string | null }>(
      "SELECT SUM(count) AS n FROM execution_minutes WHERE status <> 'ok'",
    );
    expect(exec.reduce((s, p) => s + p.occurrences, 0)).toBe(Number(failed[0]?.n));
    const id404 = signatureOf({
      kind: 'execution',
      service: 'shop',
      tool: 'refund',
      status: 'client_error',
      httpStatus: 404,
    }).hash;
    expect(exec.map((p) => p.id)).toContain(id404);
    const toolError = exec.find((p) => p.parts.includes('tool_error'))!;
    const [example] = await problemExamples(store.sql, 'shop', toolError.id);
    expect(example).toMatchObject({ name: 'refund', arguments: '{"amount":1}', model: 'gpt-4.1' });
    expect(String(example?.message)).toContain('order closed');
    expect(String(example?.trace_id)).toBe(trace(2));

    // Nothing costed before the trajectories end; then each repair once.
    expect(await costRows(store.sql, {})).toEqual([]);
    clock.now += 120_000;
    await pipeline.settle();
    await pipeline.ingestSpans(spans); // a late resend after they ended adds no repair
    clock.now += 120_000;
    await pipeline.settle();
    const cost = async (id: string) =>
      priceCost(await costRows(store.sql, { id }), { 'gpt-4.1': { input: 2, output: 8 } });
    // 404 at 200 (tool span end), repaired by the succeeding execution at 500: step 3 (300) only.
    expect(await cost(id404)).toMatchObject({
      repairs: 1,
      repaired: 1,
      steps: 1,
      inputTokens: 200,
      outputTokens: 20,
      durationMs: 300,
      usd: (200 * 2 + 20 * 8) / 1e6,
    });
    // isError at 200, never repaired: every later step, to the trajectory's end (400).
    expect(await cost(toolError.id)).toMatchObject({
      repairs: 1,
      repaired: 0,
      inputTokens: 400,
      outputTokens: 40,
      durationMs: 200,
    });
    // Missing amount at 100 (its step's end), repaired by the valid call at 400: the step at 300.
    const missing = problems.find((p) => p.outcome === 'SchemaMismatch')!;
    expect(missing.occurrences).toBe(1);
    expect(await cost(missing.id)).toMatchObject({
      repairs: 1,
      repaired: 1,
      inputTokens: 50,
      outputTokens: 5,
      durationMs: 300,
    });
    // The 503 came with nothing after it.
    const down = exec.find((p) => p.parts.includes('server_error'))!;
    expect(await cost(down.id)).toMatchObject({ repairs: 1, repaired: 0, steps: 0, inputTokens: 0 });
  });
});
