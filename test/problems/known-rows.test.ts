/**
 * Leaving out what is stored already (known-rows.ts) changes no row: the same spans through two real
 * pipelines on two stores — one recorder that learns from its commits and lookups, one told nothing
 * (every statement in full) — leave equal problem tables on both engines: new signatures, re-sightings
 * with another model and an earlier time, overflow into `_other` past max_per_service, a regression
 * after a resolve, and a refused write whose retry must still store its examples. And the learning
 * one does write fewer statements once it knows the rows (so the short path is the one tested).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { Span } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { Ledger } from '../../src/pipeline/ledger.js';
import { Pipeline } from '../../src/pipeline/pipeline.js';
import type { CountedCallSink } from '../../src/pipeline/ports.js';
import { changeStatus } from '../../src/problems/lifecycle.js';
import { ProblemRecorder } from '../../src/problems/record.js';
import { listProblems } from '../../src/problems/store.js';
import { storeRedactor } from '../../src/redact/stored.js';
import type { BatchExtension, Store } from '../../src/store/store.js';
import { storeEngines } from '../helpers/engines.js';
import { makeSpan } from '../helpers/spans.js';

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000 - (1_700_000_000_000 % HOUR);
const schema = {
  type: 'object',
  properties: { amount: { type: 'number' }, note: { type: 'string' } },
  required: ['amount'],
};
const defs = JSON.stringify([{ type: 'function', name: 'refund', parameters: schema }]);

let n = 0;
function chat(args: string, opts: { model?: string; name?: string; timeMs?: number; service?: string } = {}): Span {
  n++;
  const t = opts.timeMs ?? T0 + 1_000;
  return makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': opts.model ?? 'gpt-4.1',
      'gen_ai.tool.definitions': defs,
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: `c${n}`, name: opts.name ?? 'refund', arguments: args }],
        },
      ]),
    },
    {
      traceId: n.toString(16).padStart(32, '0'),
      spanId: n.toString(16).padStart(16, '0'),
      startTimeMs: t - 100,
      endTimeMs: t,
      service: opts.service ?? 'shop',
    },
  );
}

const disposers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const d of disposers.splice(0)) await d();
});

/** A pipeline whose problem sink counts the statements it writes; `learns: false` hides the commits from it. */
async function side(engine: (typeof storeEngines)[number], learns: boolean, clock: { now: number }) {
  const opened = await engine.open();
  disposers.push(opened.dispose);
  const store: Store = opened.store;
  const redactor = storeRedactor('secrets');
  const recorder = new ProblemRecorder({ sql: store.sql, redactor, maxPerService: 2, now: () => clock.now });
  const stats = { statements: 0, refuseNext: false };
  const wrapped = new WeakMap<BatchExtension, BatchExtension>();
  const counting = (ext: BatchExtension | undefined): BatchExtension | undefined => {
    if (!ext) return undefined;
    const w: BatchExtension = (tx) => ext({ run: (s, p) => (stats.statements++, tx.run(s, p)) });
    wrapped.set(w, ext);
    return w;
  };
  const sink: CountedCallSink = {
    extension: (c, l, f) => counting(recorder.extension(c, l, f)),
    executions: (r) => counting(recorder.executions(r)),
    trajectories: (d) => recorder.trajectories(d),
    ...(learns ? { committed: (w: BatchExtension) => recorder.committed(wrapped.get(w) ?? w) } : {}),
  };
  // A write refused inside its transaction: everything of it is rolled back.
  const refusing = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'write') return Reflect.get(target, prop, receiver);
      return (b: Parameters<Store['write']>[0]) => {
        if (!stats.refuseNext) return target.write(b);
        stats.refuseNext = false;
        const refuse: BatchExtension = () => {
          throw new Error('refused by the test');
        };
        return target.write({ ...b, extensions: [...b.extensions, refuse] });
      };
    },
  });
  const pipeline = new Pipeline({
    dialects: builtinDialects(),
    registry: new ToolRegistry(),
    schemas: new SchemaCache(),
    ledger: new Ledger({ maxTraces: 1000, maxCallsPerTrace: 100, traceTtlMs: 24 * HOUR }),
    store: refusing,
    metrics: createMetrics(),
    labels: new LabelCap(100),
    failuresPerToolPerMinute: 100,
    redactor,
    executionGraceMs: 10_000,
    now: () => clock.now,
    counted: sink,
  });
  const ingest = async (spans: Span[]) => {
    const before = stats.statements;
    await pipeline.ingestSpans(spans);
    await recorder.settled();
    return stats.statements - before;
  };
  return { store, pipeline, recorder, stats, ingest };
}

async function tables(store: Store): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [t, key] of [
    ['problems', 'service, id'],
    ['problem_hours', 'service, id, hour'],
    ['problem_models', 'service, id, model'],
    ['problem_examples', 'service, id, slot'],
  ] as const)
    out[t] = (await store.sql.all(`SELECT * FROM ${t} ORDER BY ${key}`)).map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])),
    );
  return out;
}

describe.each(storeEngines)('known rows on $name', (engine) => {
  it.skipIf(engine.skip)('leave the problem tables as writing everything in full does', async () => {
    const clock = { now: T0 + 5 * HOUR };
    const learning = await side(engine, true, clock);
    const full = await side(engine, false, clock);
    const both = async (spans: () => Span[]) => {
      const batch = spans();
      return { learning: await learning.ingest(batch), full: await full.ingest(batch) };
    };

    await both(() => [chat('{}'), chat('{"amount":"1"}'), chat('{}', { model: 'claude-4' })]);
    // Re-sightings: an earlier time and a new model (new `first`? no: kept once; a new model slot: yes).
    const again = await both(() => [
      chat('{"note":"again"}', { timeMs: T0 + 500 }),
      chat('{"amount":"2"}', { model: 'o3', timeMs: T0 + HOUR + 1 }),
    ]);
    expect(again.learning).toBeLessThan(again.full);
    // Past max_per_service (2): new signatures go to `_other`.
    await both(() => [chat('{"amount": 1', { timeMs: T0 + HOUR + 2 }), chat('{}', { name: 'Refund_Order' })]);
    await both(() => [chat('{"amount": 2', { model: 'o3', timeMs: T0 + 2 * HOUR })]);
    // Resolved by hand, then seen again: regressed.
    for (const s of [learning, full]) {
      const [p] = (await listProblems(s.store.sql, 'shop')).filter((x) => x.id !== '_other' && x.occurrences === 3);
      expect(p).toBeDefined();
      await changeStatus(s.store.sql, 'shop', p!.id, 'resolve', clock.now);
    }
    clock.now += HOUR;
    await both(() => [chat('{}', { timeMs: T0 + 3 * HOUR }), chat('{"amount": 3', { timeMs: T0 + 3 * HOUR })]);
    // A refused write, then its retry: the new service's row and examples must still be stored.
    const refused = [chat('{}', { service: 'pay' }), chat('{}', { service: 'pay', model: 'o3' })];
    learning.stats.refuseNext = true;
    full.stats.refuseNext = true;
    await expect(learning.ingest(refused)).rejects.toThrow(/refused by the test/);
    await expect(full.ingest(refused)).rejects.toThrow(/refused by the test/);
    await both(() => refused);
    const later = await both(() => [chat('{}', { service: 'pay', timeMs: T0 + 4 * HOUR })]);
    expect(later.learning).toBeLessThan(later.full);

    const a = await tables(learning.store);
    const b = await tables(full.store);
    expect(a).toEqual(b);
    expect(a.problems!.map((p) => (p as { status: string }).status)).toContain('regressed');
    expect(a.problems!.some((p) => (p as { id: string }).id === '_other')).toBe(true);
    expect(a.problem_examples!.filter((e) => (e as { service: string }).service === 'pay')).toHaveLength(4);
  });
});

describe('a failed lookup', () => {
  it('is no error: the signature is simply not known yet, and its rows go out in full', async () => {
    const failing = {
      dialect: 'sqlite' as const,
      all: () => {
        throw new Error('the store is closing');
      },
    };
    const recorder = new ProblemRecorder({ sql: failing, redactor: storeRedactor('secrets'), maxPerService: 10 });
    const calls = [
      {
        source: 'otlp' as const,
        traceId: 't1',
        spanId: 's1',
        service: 'shop',
        model: 'm',
        name: 'refund',
        args: { kind: 'string' as const, raw: '{"amount": 1' },
        timeMs: T0,
        outcome: { outcome: 'InvalidJson' as const, cause: 'truncated' as const, message: 'Unexpected end' },
      },
    ];
    const labels = [
      { service: 'shop', model: 'm', tool: 'refund', metric: { service: 'shop', model: 'm', tool: 'refund' } },
    ];
    const statements = (ext: BatchExtension | undefined) => {
      const seen: string[] = [];
      ext?.({ run: (s) => void seen.push(s) });
      return seen.length;
    };
    const first = recorder.extension(calls as never, labels, []);
    const full = statements(first);
    recorder.committed(first!);
    await expect(recorder.settled()).resolves.toBeUndefined();
    // Its once-slots are known (committed); its own row is not (the read failed): still the overflow path.
    const again = recorder.extension(calls as never, labels, []);
    expect(statements(again)).toBe(full - 2);
  });
});
