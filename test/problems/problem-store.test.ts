/**
 * The problem store on both engines, through the real readers, checker and pipeline: a problem's
 * occurrences equal the failed calls of its signature as counted (call_minutes, the rows behind
 * toolwatch_tool_calls_total), under resends; hourly and per-model counts add up; examples are kept
 * and redacted; a service past problems.max_per_service overflows into `_other`, losing no count.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { Ledger } from '../../src/pipeline/ledger.js';
import { Pipeline, type BatchSink } from '../../src/pipeline/pipeline.js';
import { ProblemRecorder } from '../../src/problems/record.js';
import { signatureOf } from '../../src/problems/signature.js';
import { listProblems, OTHER_PROBLEM, problemExamples, problemHours, problemModels } from '../../src/problems/store.js';
import { storeRedactor } from '../../src/redact/stored.js';
import type { Store } from '../../src/store/store.js';
import { storeEngines } from '../helpers/engines.js';
import { makeSpan } from '../helpers/spans.js';
import { HOUR, T0, chat } from './refund-chat.js';

let dispose: (() => Promise<void>) | undefined;
afterEach(async () => {
  await dispose?.();
  dispose = undefined;
});

async function setup(engine: (typeof storeEngines)[number], maxPerService = 100, sinks: BatchSink[] = []) {
  const opened = await engine.open();
  dispose = opened.dispose;
  const store: Store = opened.store;
  const clock = { now: T0 + 5 * HOUR };
  const redactor = storeRedactor('secrets');
  const pipeline = new Pipeline({
    dialects: builtinDialects(),
    registry: new ToolRegistry(),
    schemas: new SchemaCache(),
    ledger: new Ledger({ maxTraces: 1000, maxCallsPerTrace: 100, traceTtlMs: 24 * HOUR }),
    store,
    metrics: createMetrics(),
    labels: new LabelCap(100),
    failuresPerToolPerMinute: 2, // fewer failure records than failures: problems still count them all
    redactor,
    executionGraceMs: 10_000,
    now: () => clock.now,
    counted: new ProblemRecorder({ sql: store.sql, redactor, maxPerService }),
    sinks,
  });
  return { store, pipeline, clock };
}

/** Failed calls as counted, by (service, tool label, outcome). */
async function countedFailures(store: Store): Promise<number> {
  const rows = await store.sql.all<{ n: number | string | null }>(
    "SELECT SUM(count) AS n FROM call_minutes WHERE outcome IN ('InvalidJson', 'UnknownName', 'SchemaMismatch')",
  );
  return Number(rows[0]?.n ?? 0);
}

describe.each(storeEngines)('problem store on $name', (engine) => {
  it.skipIf(engine.skip)('occurrences equal the failed calls of each signature, under resends', async () => {
    const { store, pipeline, clock } = await setup(engine);
    const missingAmount = [
      chat('{}'),
      chat('{"items":[]}', { model: 'claude-4' }),
      chat('{"items":[{"sku":"A"}]}', { timeMs: T0 + HOUR + 5 }),
    ];
    const missingSku = [
      chat('{"amount":1,"items":[{"qty":1}]}'),
      chat('{"amount":2,"items":[{"sku":"B"},{"qty":2},{"qty":3}]}', { timeMs: T0 + 2 * HOUR }),
    ];
    const truncated = [chat('{"amount": 1, "api_key": "sk-abcdefghijklmnopqrstuvwx'), chat('{"amount": 1')];
    const unknown = [chat('{}', { name: 'Refund_Order' }), chat('{}', { name: 'refund_order' })];
    const valid = [chat('{"amount":3}')];
    const first = [...missingAmount, ...truncated, valid[0]!];
    const second = [...missingSku, ...unknown];
    await pipeline.ingestSpans(first);
    await pipeline.ingestSpans(second);
    await pipeline.ingestSpans(first); // resent
    await pipeline.ingestSpans([...second].reverse()); // resent, reordered
    clock.now += 60_000;
    await pipeline.settle();

    const problems = await listProblems(store.sql, 'shop');
    const byId = new Map(problems.map((p) => [p.id, p]));
    const hash = (errorsRaw: string) =>
      signatureOf({
        kind: 'SchemaMismatch',
        service: 'shop',
        tool: 'refund',
        errors: [{ instancePath: '', keyword: 'required', message: '', params: { missingProperty: errorsRaw } }],
      }).hash;
    expect(byId.get(hash('amount'))?.occurrences).toBe(3);
    const sku = problems.find((p) => p.parts.includes('required /items/*/sku'));
    expect(sku?.occurrences).toBe(2);
    const cut = problems.find((p) => p.outcome === 'InvalidJson');
    expect(cut?.parts).toEqual(['truncated']);
    expect(cut?.occurrences).toBe(2);
    const invented = problems.find((p) => p.outcome === 'UnknownName');
    expect(invented).toMatchObject({ tool: 'refund_order', occurrences: 2 });
    expect(problems).toHaveLength(4);
    expect(problems.every((p) => p.status === 'open')).toBe(true);

    // Exact: the problems' occurrences are the failed calls counted, no more, no less.
    const total = problems.reduce((s, p) => s + p.occurrences, 0);
    expect(total).toBe(await countedFailures(store));
    expect(total).toBe(9);

    const amount = byId.get(hash('amount'))!;
    expect(amount.firstSeenMs).toBe(T0 + 1_000);
    expect(amount.lastSeenMs).toBe(T0 + HOUR + 5);
    expect(await problemHours(store.sql, 'shop', amount.id)).toEqual([
      { hour: T0, count: 2 },
      { hour: T0 + HOUR, count: 1 },
    ]);
    expect(await problemModels(store.sql, 'shop', amount.id)).toEqual([
      { model: 'gpt-4.1', count: 2 },
      { model: 'claude-4', count: 1 },
    ]);
    const examples = await problemExamples(store.sql, 'shop', amount.id);
    expect(examples.map((e) => e.slot).sort()).toEqual(['first', 'latest', 'model:claude-4', 'model:gpt-4.1']);
    expect(examples.find((e) => e.slot === 'first')?.arguments).toBe('{}');
    expect(examples.find((e) => e.slot === 'latest')?.arguments).toBe('{"items":[{"sku":"A"}]}');

    // Examples are redacted as stored failures are: the secret in the cut-off arguments is masked.
    const cutExamples = await problemExamples(store.sql, 'shop', cut!.id);
    const kept = cutExamples.map((e) => String(e.arguments ?? '')).join(' ');
    expect(kept).not.toContain('sk-abcdefghijklmnopqrstuvwx');
    // Exactly what the stored redactor's json() makes of them (the problem recorder masks unparsed text directly).
    const redactor = storeRedactor('secrets');
    const asJson = ['{"amount": 1, "api_key": "sk-abcdefghijklmnopqrstuvwx', '{"amount": 1'].map((raw) => {
      const r = redactor.json(raw);
      return r.ok ? r.value : undefined;
    });
    for (const e of cutExamples) expect(asJson).toContain(e.arguments);
  });

  it.skipIf(engine.skip)('examples kept once are not written again, unless their batch was refused', async () => {
    // A sink whose rows the store refuses once, inside the batch's transaction: nothing of it commits.
    let refuse = true;
    const refusing: BatchSink = {
      collect: () => [
        () => {
          if (refuse) throw new Error('refused once');
        },
      ],
    };
    const { store, pipeline } = await setup(engine, 100, [refusing]);
    const batch = [chat('{}', { timeMs: T0 + 1_000 })];
    await expect(pipeline.ingestSpans(batch)).rejects.toThrow('refused once');
    refuse = false;
    // The resend writes what the refused batch did not: its first example too.
    await pipeline.ingestSpans(batch);
    await pipeline.ingestSpans([chat('{"items":[]}', { timeMs: T0 + 2_000, model: 'claude-4' })]);
    await pipeline.ingestSpans([chat('{"items":[{"sku":"A"}]}', { timeMs: T0 + 3_000 })]);
    const [problem] = await listProblems(store.sql, 'shop');
    expect(problem?.occurrences).toBe(3);
    const examples = await problemExamples(store.sql, 'shop', problem!.id);
    expect(examples.map((e) => [e.slot, e.arguments])).toEqual([
      ['first', '{}'],
      ['latest', '{"items":[{"sku":"A"}]}'],
      ['model:claude-4', '{"items":[]}'],
      ['model:gpt-4.1', '{}'],
    ]);
  });

  it.skipIf(engine.skip)('a call counted from its tool span alone, after the grace, is filed too', async () => {
    const { store, pipeline, clock } = await setup(engine);
    const toolSpan = makeSpan(
      {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'refund',
        'gen_ai.tool.call.id': 'lonely',
        'gen_ai.tool.call.arguments': '{"amount": 1',
      },
      { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), startTimeMs: T0, endTimeMs: T0 + 5, service: 'shop' },
    );
    await pipeline.ingestSpans([toolSpan]);
    expect(await listProblems(store.sql, 'shop')).toEqual([]); // held for its proposal
    clock.now += 60_000;
    await pipeline.settle();
    await pipeline.ingestSpans([toolSpan]); // resent after it was counted
    await pipeline.settle();
    const problems = await listProblems(store.sql, 'shop');
    expect(problems.map((p) => [p.outcome, p.parts, p.occurrences])).toEqual([['InvalidJson', ['truncated'], 1]]);
    expect(await countedFailures(store)).toBe(1);
  });

  it.skipIf(engine.skip)(
    'past max_per_service new signatures count in _other; existing ones keep counting',
    async () => {
      const { store, pipeline, clock } = await setup(engine, 2);
      await pipeline.ingestSpans([chat('{}'), chat('{"amount":"x"}')]);
      await pipeline.ingestSpans([chat('{"amount":1,"items":[{}]}'), chat('{"amount": 1'), chat('{}')]);
      clock.now += 60_000;
      await pipeline.settle();
      const problems = await listProblems(store.sql, 'shop');
      expect(
        problems.map((p) => [p.id === OTHER_PROBLEM ? '_other' : p.parts.join(','), p.occurrences]).sort(),
      ).toEqual([
        ['_other', 2],
        ['required /amount', 2],
        ['type /amount', 1],
      ]);
      expect(problems.reduce((s, p) => s + p.occurrences, 0)).toBe(await countedFailures(store));
      const other = problems.find((p) => p.id === OTHER_PROBLEM)!;
      expect((await problemHours(store.sql, 'shop', other.id)).reduce((s, h) => s + h.count, 0)).toBe(2);
    },
  );
});
