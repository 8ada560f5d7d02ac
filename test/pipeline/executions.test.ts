/**
 * Executions and trajectories through the pipeline with a controlled clock: an HTTP child span sets
 * its tool span's status whether it arrives before, with or after it (while the execution is held for
 * status_grace) — and not once the execution was counted; an execution waits for its call's outcome
 * when only its tool span was seen; the trajectory of a trace is observed once it went idle, counts
 * nested model spans as one step, and a trace pushed out of the bounded memory is observed as it stood.
 */
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { bucketOf, quantile } from '../../src/efficiency/buckets.js';
import { TrajectoryTracker } from '../../src/efficiency/tracker.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { Span } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { Ledger } from '../../src/pipeline/ledger.js';
import { Pipeline } from '../../src/pipeline/pipeline.js';
import { storeRedactor } from '../../src/redact/stored.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { makeSpan } from '../helpers/spans.js';

const T = '11111111111111111111111111111111';
const schema = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};
const defs = JSON.stringify([{ type: 'function', name: 'weather', parameters: schema }]);

const at = (ms: number) => ({ startTimeMs: ms, endTimeMs: ms + 50 });

function chat(
  spanId: string,
  calls: { id: string; args: string }[],
  extra: Record<string, unknown> = {},
  parent = '',
): Span {
  return makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'm1',
      'gen_ai.tool.definitions': defs,
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          parts: calls.map((c) => ({ type: 'tool_call', id: c.id, name: 'weather', arguments: c.args })),
        },
      ]),
      ...extra,
    },
    { traceId: T, spanId, parentSpanId: parent, kind: 1, ...at(1_000) },
  );
}

function tool(spanId: string, id: string, args = '{"city":"Oslo"}'): Span {
  return makeSpan(
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'weather',
      'gen_ai.tool.call.id': id,
      'gen_ai.tool.call.arguments': args,
    },
    { traceId: T, spanId, kind: 1, ...at(2_000) },
  );
}

function http(spanId: string, parent: string, status: number): Span {
  return makeSpan(
    { 'http.request.method': 'GET', 'http.response.status_code': status },
    { traceId: T, spanId, parentSpanId: parent, kind: 3, statusCode: status >= 400 ? 2 : 0, ...at(2_010) },
  );
}

function setup(statusGraceMs = 2_000, trajectory = { idleMs: 60_000, maxTraces: 100 }) {
  const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
  const clock = { now: 10_000_000 };
  const metrics = createMetrics();
  const labels = new LabelCap(100);
  const trajectories = new TrajectoryTracker(trajectory, (m) => labels.value('model', m));
  const pipeline = new Pipeline({
    dialects: builtinDialects(),
    registry: new ToolRegistry(),
    schemas: new SchemaCache(),
    ledger: new Ledger({ maxTraces: 100, maxCallsPerTrace: 100, traceTtlMs: 3_600_000 }),
    store,
    metrics,
    labels,
    failuresPerToolPerMinute: 10,
    redactor: storeRedactor('secrets'),
    executionGraceMs: 10_000,
    statusGraceMs,
    trajectories,
    now: () => clock.now,
  });
  const ingest = async (spans: Span[], advanceMs = 100) => {
    await pipeline.ingestSpans(spans);
    clock.now += advanceMs;
  };
  const executions = async () =>
    (await metrics.toolExecutions.get()).values
      .map((v) => `${v.labels.status}/${v.labels.call_outcome}=${v.value}`)
      .sort();
  const stored = async () =>
    (
      await store.sql.all<Record<string, unknown>>(
        'SELECT model, status, call_outcome, count FROM execution_minutes ORDER BY status, call_outcome',
      )
    ).map((r) => `${r.model}:${r.status}/${r.call_outcome}=${r.count}`);
  return { store, clock, metrics, pipeline, trajectories, ingest, executions, stored };
}

describe('an HTTP child sets its tool span’s status, in any order', () => {
  it.each([
    ['before its tool span (an earlier batch)', (p: Span[], t: Span, h: Span) => [[...p, h], [t]]],
    ['in the same batch', (p: Span[], t: Span, h: Span) => [[...p, t, h]]],
    ['after its tool span (a later batch, within status_grace)', (p: Span[], t: Span, h: Span) => [p, [t], [h]]],
    ['after its tool span, child first in the batch', (p: Span[], t: Span, h: Span) => [[h, ...p], [t]]],
  ])('%s', async (_n, order) => {
    const s = setup();
    for (const batch of order(
      [chat('a1', [{ id: 'c1', args: '{"city":"Oslo"}' }])],
      tool('b1', 'c1'),
      http('d1', 'b1', 404),
    ))
      await s.ingest(batch);
    expect(await s.executions()).toEqual([]); // held for status_grace
    s.clock.now += 2_000;
    await s.pipeline.settle();
    expect(await s.executions()).toEqual(['client_error/valid=1']);
    expect(await s.stored()).toEqual(['m1:client_error/valid=1']);
    await s.store.close();
  });

  it('a child arriving after the execution was counted changes nothing (documented)', async () => {
    const s = setup();
    await s.ingest([chat('a1', [{ id: 'c1', args: '{"city":"Oslo"}' }]), tool('b1', 'c1')]);
    s.clock.now += 2_000;
    await s.pipeline.settle();
    await s.ingest([http('d1', 'b1', 503)]);
    s.clock.now += 5_000;
    await s.pipeline.settle();
    expect(await s.executions()).toEqual(['ok/valid=1']);
    expect(s.pipeline.executions.waitingChildren).toBe(1); // remembered for a parent that does not come, then forgotten
    await s.store.close();
  });

  it('status_grace 0s: counted at the next settle, children that came first still apply', async () => {
    const s = setup(0);
    await s.ingest([http('d1', 'b1', 500)]);
    await s.ingest([chat('a1', [{ id: 'c1', args: '{"city":"Oslo"}' }]), tool('b1', 'c1')]);
    await s.pipeline.settle();
    expect(await s.executions()).toEqual(['server_error/valid=1']);
    await s.store.close();
  });

  it('several children: a refusal says more than a server error', async () => {
    const s = setup();
    await s.ingest([http('d1', 'b1', 503), http('d2', 'b1', 400)]);
    await s.ingest([chat('a1', [{ id: 'c1', args: '{"city":"Oslo"}' }]), tool('b1', 'c1')]);
    await s.ingest([http('d3', 'b1', 500)]);
    s.clock.now += 2_000;
    await s.pipeline.settle();
    expect(await s.executions()).toEqual(['client_error/valid=1']);
    await s.store.close();
  });
});

describe('an execution is counted with its call’s outcome', () => {
  it('a call that failed its schema check and then downstream', async () => {
    const s = setup();
    await s.ingest([
      chat('a1', [{ id: 'c1', args: '{"city":1}' }]),
      tool('b1', 'c1', '{"city":1}'),
      http('d1', 'b1', 422),
    ]);
    s.clock.now += 2_000;
    await s.pipeline.settle();
    expect(await s.executions()).toEqual(['client_error/SchemaMismatch=1']);
    await s.store.close();
  });

  it('tool span before its proposal: the execution waits for the call, then takes its outcome and model', async () => {
    const s = setup();
    await s.ingest([tool('b1', 'c1', '{"city":1}'), http('d1', 'b1', 400)], 3_000);
    await s.pipeline.settle(); // past status_grace, but the call is not counted yet
    expect(await s.executions()).toEqual([]);
    await s.ingest([chat('a1', [{ id: 'c1', args: '{"city":1}' }])]);
    await s.pipeline.settle();
    expect(await s.executions()).toEqual(['client_error/SchemaMismatch=1']);
    expect(await s.stored()).toEqual(['m1:client_error/SchemaMismatch=1']);
    await s.store.close();
  });

  it('tool span only: counted with the call when its grace period ends (unvalidated without a schema)', async () => {
    const s = setup();
    await s.ingest([tool('b1', 'c1'), http('d1', 'b1', 404)]);
    s.clock.now += 10_000;
    await s.pipeline.settle();
    expect(await s.executions()).toEqual(['client_error/unvalidated=1']);
    await s.store.close();
  });

  it('drain (shutdown) counts what is held', async () => {
    const s = setup();
    await s.ingest([chat('a1', [{ id: 'c1', args: '{"city":"Oslo"}' }]), tool('b1', 'c1')]);
    await s.pipeline.drain();
    expect(await s.executions()).toEqual(['ok/valid=1']);
    expect(
      (await s.metrics.trajectoryToolCalls.get()).values.find((v) => v.metricName?.endsWith('_count'))?.value,
    ).toBe(1);
    await s.store.close();
  });
});

describe('trajectories', () => {
  it('observed once idle: steps (nested model spans once), calls, failed calls, tokens, wall time', async () => {
    const s = setup();
    await s.ingest([
      // A LangChain-style wrapper and the provider span inside it: one step; tokens counted once.
      chat(
        'a1',
        [
          { id: 'c1', args: '{"city":"Oslo"}' },
          { id: 'c2', args: '{"city":2}' },
        ],
        { 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 20 },
        'a0',
      ),
      makeSpan(
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'm1',
          'gen_ai.usage.input_tokens': 100,
          'gen_ai.usage.output_tokens': 20,
        },
        { traceId: T, spanId: 'a0', kind: 1, startTimeMs: 990, endTimeMs: 1_060 },
      ),
      tool('b1', 'c1'),
      http('d1', 'b1', 500),
    ]);
    await s.ingest([chat('a2', [], { 'gen_ai.usage.input_tokens': 300, 'gen_ai.usage.output_tokens': 5 })]);
    await s.ingest([chat('a2', [], { 'gen_ai.usage.input_tokens': 300, 'gen_ai.usage.output_tokens': 5 })]); // resent
    s.clock.now += 30_000;
    await s.pipeline.settle();
    expect(s.trajectories.size).toBe(1); // not idle yet
    s.clock.now += 60_000;
    await s.pipeline.settle();
    expect(s.trajectories.size).toBe(0);
    const rows = await s.store.sql.all(
      'SELECT service, model, trajectories, steps, tool_calls, failed_calls, tokens, with_tokens, duration_ms FROM trajectory_minutes',
    );
    // Steps: the wrapper pair once + the final answer; failed: c2 (SchemaMismatch) + c1 (server_error).
    expect(rows).toEqual([
      {
        service: 'test-service',
        model: 'm1',
        trajectories: 1,
        steps: 2,
        tool_calls: 2,
        failed_calls: 2,
        tokens: 425,
        with_tokens: 1,
        duration_ms: 1_060,
      },
    ]);
    await s.store.close();
  });

  it('a trace without calls is no trajectory; one pushed out of the bounded memory is observed as it stood', async () => {
    const s = setup(2_000, { idleMs: 60_000, maxTraces: 1 });
    await s.ingest([
      makeSpan(
        { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm1' },
        { traceId: '2'.repeat(32), spanId: 'e1', kind: 1 },
      ),
    ]);
    await s.ingest([chat('a1', [{ id: 'c1', args: '{"city":"Oslo"}' }])]);
    await s.ingest(
      [chat('x1', [{ id: 'c9', args: '{"city":"Oslo"}' }], {}, '')].map((x) => ({ ...x, traceId: '3'.repeat(32) })),
    );
    await s.pipeline.settle();
    // The trace of T was pushed out by the third: observed with what it had (1 call), the first had no call.
    const rows = await s.store.sql.all<{ trajectories: number; tool_calls: number }>(
      'SELECT trajectories, tool_calls FROM trajectory_minutes',
    );
    expect(rows).toEqual([{ trajectories: 1, tool_calls: 1 }]);
    expect(s.trajectories.size).toBe(1);
    await s.store.close();
  });
});

describe('the trajectory memory (unit)', () => {
  const call = (traceId: string) =>
    ({ traceId, outcome: { outcome: 'valid' } }) as unknown as Parameters<TrajectoryTracker['calls']>[0][number];
  const label = { service: 's', model: 'm' };

  it('makes room by evicting the oldest untouched trace; one touched since gets a second chance', () => {
    const t = new TrajectoryTracker({ idleMs: 60_000, maxTraces: 2 }, (m) => m);
    t.calls([call('a'), call('b')], [label, label], 1_000);
    t.calls([call('a')], [label], 2_000); // a touched again
    t.calls([call('c')], [label], 3_000); // full: b goes, a moves to the back
    expect(t.takeIdle(3_000).map((x) => [x.traceId, x.toolCalls])).toEqual([['b', 1]]);
    t.calls([call('d')], [label], 4_000); // full again: a (untouched since its second chance, last at 2 s) goes
    expect(t.takeIdle(4_000).map((x) => x.traceId)).toEqual(['a']);
    t.calls([call('c')], [label], 5_000);
    expect(t.takeIdle(64_000).map((x) => x.traceId)).toEqual(['d']); // idle since 4 s; c since 5 s
    expect(t.takeIdle(65_000).map((x) => [x.traceId, x.toolCalls])).toEqual([['c', 2]]);
    expect(t.size).toBe(0);
  });

  it('hands out the traces it pushed out in the order they went, trace ids spelled as they came', () => {
    const t = new TrajectoryTracker({ idleMs: 60_000, maxTraces: 2 }, (m) => m);
    // Past the spare slots too (1,024 beyond maxTraces): the ones waiting are made records on the way.
    const ids = Array.from({ length: 3_000 }, (_, i) => (i % 3 ? i.toString(16).padStart(32, '0') : `trace-${i}`));
    for (let i = 0; i < ids.length; i++) t.calls([call(ids[i]!)], [label], i);
    expect(t.size).toBe(2);
    expect(t.takeIdle(ids.length).map((d) => d.traceId)).toEqual(ids.slice(0, -2));
    expect(t.takeIdle(ids.length + 60_000).map((d) => d.traceId)).toEqual(ids.slice(-2));
    expect(t.size).toBe(0);
  });

  it('hands a failed write back first, before what was pushed out since, at most maxTraces of them', () => {
    const t = new TrajectoryTracker({ idleMs: 60_000, maxTraces: 2 }, (m) => m);
    for (const id of ['a', 'b', 'c', 'd']) t.calls([call(id)], [label], 1_000);
    const failed = t.takeIdle(1_000);
    expect(failed.map((x) => x.traceId)).toEqual(['a', 'b']);
    t.calls([call('e')], [label], 2_000); // c goes
    t.restore(failed); // [a, b, c]: the last two wait
    t.calls([call('f')], [label], 3_000); // d goes
    expect(t.takeIdle(3_000).map((x) => x.traceId)).toEqual(['b', 'c', 'd']);
  });

  it('remembers the model spans of a long trajectory past the fixed area of its slot', () => {
    const t = new TrajectoryTracker({ idleMs: 1_000, maxTraces: 10 }, (m) => m);
    const model = (spanId: string, parent = '', tokens = 10) =>
      ({
        traceId: 'x',
        spanId,
        parentSpanId: parent,
        role: 'model',
        model: 'm',
        proposals: [],
        startTimeMs: 1,
        endTimeMs: 2,
        inputTokens: tokens,
      }) as unknown as Parameters<TrajectoryTracker['spans']>[0][number];
    // Six steps, the last nested in the fifth (one step), then every span again (a resend): 5 steps, 50 tokens.
    const spans = [
      '0000000000000001',
      '0000000000000002',
      '0000000000000003',
      '0000000000000004',
      '0000000000000005',
    ].map((id) => model(id));
    spans.push(model('0000000000000006', '0000000000000005'));
    t.spans(spans, 0);
    t.spans(spans, 0);
    t.calls([call('x')], [label], 0);
    expect(t.takeIdle(5_000).map((d) => [d.steps, d.tokens])).toEqual([[5, 50]]);
  });

  it('reuses freed slots and grows past its first capacity', () => {
    const t = new TrajectoryTracker({ idleMs: 1_000, maxTraces: 5_000 }, (m) => m);
    for (let round = 0; round < 3; round++) {
      const ids = Array.from({ length: 3_000 }, (_, i) => `${round}-${i}`);
      t.calls(
        ids.map(call),
        ids.map(() => label),
        round * 10_000,
      );
      const done = t.takeIdle(round * 10_000 + 1_000);
      expect([done.length, new Set(done.map((d) => d.traceId)).size, t.size]).toEqual([3_000, 3_000, 0]);
    }
  });
});

describe('value buckets', () => {
  it.each([
    [0, 0],
    [7, 7],
    [10, 10],
    [11, 11],
    [14, 14],
    [21, 22],
    [95, 100],
    [100, 100],
    [101, 110],
    [1234, 1300],
    [4575, 4600],
    [999_999, 1_000_000],
  ])('%i → bucket %i', (v, b) => expect(bucketOf(v)).toBe(b));

  it('no bucket is more than 10 % wide', () => {
    let prev = 10;
    for (let v = 11; v < 2_000_000; v = Math.ceil(v * 1.01)) {
      const b = bucketOf(v);
      expect(b).toBeGreaterThanOrEqual(v);
      expect(b / v).toBeLessThanOrEqual(1.1);
      expect(b).toBeGreaterThanOrEqual(prev);
      prev = b;
    }
  });

  it('nearest-rank quantiles', () => {
    const b = new Map([
      [1, 5],
      [2, 3],
      [8, 2],
    ]);
    expect([quantile(b, 0.5), quantile(b, 0.8), quantile(b, 0.9), quantile(new Map(), 0.5)]).toEqual([1, 2, 8, null]);
  });
});

describe('a store that refuses the settle write', () => {
  it('keeps the executions and counts them, once, when it takes writes again', async () => {
    const s = setup();
    await s.ingest([tool('b1', 'c1'), http('d1', 'b1', 404)]); // tool span only: its call waits
    s.clock.now += 10_000;
    const write = s.store.write.bind(s.store);
    let refuse = true;
    s.store.write = (b) => (refuse && b.executionAggregates.length ? Promise.reject(new Error('disk full')) : write(b));
    await expect(s.pipeline.settle()).rejects.toThrow('disk full');
    expect(await s.executions()).toEqual([]);
    expect(s.pipeline.executions.size).toBe(1);
    refuse = false;
    await s.pipeline.settle();
    expect(await s.executions()).toEqual(['client_error/unvalidated=1']);
    expect(await s.stored()).toEqual([':client_error/unvalidated=1']);
    await s.store.close();
  });
});
