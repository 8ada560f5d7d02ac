/**
 * Wall-clock jumps (issue 17, finding 14): the clock set ±2 h while the monotonic clock runs on. The
 * dedupe memory's TTL, the execution and status graces and the idle clocks run on the steady clock
 * (util/steady-clock.ts); what is stored stays on the wall clock.
 */
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { Span } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { Ledger } from '../../src/pipeline/ledger.js';
import { Pipeline } from '../../src/pipeline/pipeline.js';
import { storeRedactor } from '../../src/redact/stored.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { steadyClock } from '../../src/util/steady-clock.js';
import { makeSpan } from '../helpers/spans.js';

const HOUR = 3_600_000;
const TRACE = 'efefefefefefefefefefefefefefefef';
const defs = JSON.stringify([{ type: 'function', name: 'weather', parameters: { type: 'object' } }]);

const proposal = (spanId: string, callId: string): Span =>
  makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'm1',
      'gen_ai.tool.definitions': defs,
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'tool_call', id: callId, name: 'weather', arguments: '{}' }] },
      ]),
    },
    { traceId: TRACE, spanId, startTimeMs: 1_000, endTimeMs: 1_100 },
  );
const toolSpan = (spanId: string, callId: string): Span =>
  makeSpan(
    { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'weather', 'gen_ai.tool.call.id': callId },
    { traceId: TRACE, spanId, startTimeMs: 1_200, endTimeMs: 1_300 },
  );

function setUp(store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' }), wall = Date.UTC(2026, 11, 1, 12)) {
  const clock = { wall, mono: 5_000 };
  const metrics = createMetrics();
  const pipeline = new Pipeline({
    dialects: builtinDialects(),
    registry: new ToolRegistry(),
    schemas: new SchemaCache(),
    // The defaults: trace_ttl 1 h, execution_grace 10 s, status_grace 2 s.
    ledger: new Ledger({ maxTraces: 100, maxCallsPerTrace: 100, traceTtlMs: HOUR }),
    store,
    metrics,
    labels: new LabelCap(100),
    failuresPerToolPerMinute: 10,
    redactor: storeRedactor('secrets'),
    executionGraceMs: 10_000,
    statusGraceMs: 2_000,
    now: () => clock.wall,
    steady: steadyClock(
      () => clock.wall,
      () => clock.mono,
    ),
  });
  /** Both clocks run on by `ms`; the wall clock also jumps by `jump`. */
  const pass = (ms: number, jump = 0) => {
    clock.mono += ms;
    clock.wall += ms + jump;
  };
  const sum = async (m: { get(): Promise<{ values: { value: number }[] }> }) =>
    (await m.get()).values.reduce((n, v) => n + v.value, 0);
  const counted = async () => ({
    calls: await sum(metrics.toolCalls),
    executions: await sum(metrics.toolExecutions),
    duplicates: await sum(metrics.duplicateSpans),
  });
  return { clock, store, pipeline, pass, counted };
}

describe('a wall-clock jump moves no timer', () => {
  it('+2 h: a resend seconds after its original is still a duplicate', async () => {
    const { pipeline, pass, counted, store, clock } = setUp();
    const batch = [proposal('a000000000000001', 'c1')];
    await pipeline.ingestSpans(batch);
    const wallAtFirst = clock.wall;
    pass(3_000, 2 * HOUR);
    await pipeline.ingestSpans(batch);
    expect(await counted()).toMatchObject({ calls: 1, duplicates: 1 });
    // What is stored stays on the wall clock: the journal records say when, as the wall clock had it.
    const times = await store.sql.all<{ time_ms: number }>('SELECT time_ms FROM ledger_batches ORDER BY id');
    expect(times.map((r) => Number(r.time_ms))).toEqual([wallAtFirst]);
    await store.close();
  });

  it('-2 h: a tool-span-only call is counted after its grace, and the executions behind it are not held', async () => {
    const { pipeline, pass, counted, store } = setUp();
    await pipeline.ingestSpans([toolSpan('b000000000000001', 'c1')]);
    pass(1_000, -2 * HOUR);
    await pipeline.ingestSpans([proposal('a000000000000002', 'c2'), toolSpan('b000000000000002', 'c2')]);
    pass(12_000);
    await pipeline.settle();
    expect(await counted()).toEqual({ calls: 2, executions: 2, duplicates: 0 });
    await store.close();
  });

  it('-2 h: a call waiting in a persisted row of a clock ahead waits no longer than one grace period', async () => {
    const first = setUp();
    await first.pipeline.ingestSpans([toolSpan('b000000000000003', 'c3')]);
    const rows = await first.store.loadPending();
    expect(rows).toHaveLength(1);
    // The next process on the same store: its clocks start two hours behind the one that wrote the row.
    const next = setUp(first.store, first.clock.wall - 2 * HOUR);
    expect(next.pipeline.restorePending(rows).restored).toBe(1);
    next.pass(11_000);
    await next.pipeline.settle();
    next.pass(3_000);
    await next.pipeline.settle();
    expect(await next.counted()).toEqual({ calls: 1, executions: 0, duplicates: 0 });
    await first.store.close();
  });
});
