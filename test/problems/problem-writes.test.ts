/**
 * What a batch's problem write leaves out or merges, on both engines through the real pipeline:
 * problems this process committed go into multi-row statements and kept examples are not written
 * again, and the tables end exactly as writing every batch in full (a recorder that knows nothing,
 * every row its own statement) leaves them — with a service past problems.max_per_service (several
 * problems into one `_other` in one statement) and more problems than one statement takes. And the
 * `latest` example with problems.latest_example_every: replaced only by a sighting that much newer
 * than the one this process wrote, never by an older one; a new process writes its first at once.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { Span } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { Ledger } from '../../src/pipeline/ledger.js';
import { type CountedCallSink, Pipeline } from '../../src/pipeline/pipeline.js';
import type { ProblemDelta } from '../../src/problems/delta.js';
import { ProblemRecorder, type ProblemRecorderDeps } from '../../src/problems/record.js';
import { MultiRow } from '../../src/problems/rows.js';
import { problemExtension } from '../../src/problems/write.js';
import { listProblems, OTHER_PROBLEM, problemExamples, problemHours } from '../../src/problems/store.js';
import { storeRedactor } from '../../src/redact/stored.js';
import { migrateSqlite } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { storeEngines } from '../helpers/engines.js';
import { chat, HOUR, numberSpansFrom, T0 } from './refund-chat.js';

const disposers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const d of disposers.splice(0)) await d();
});

async function setup(engine: (typeof storeEngines)[number], counted: (store: Store) => CountedCallSink) {
  const opened = await engine.open();
  disposers.push(opened.dispose);
  return { store: opened.store, pipeline: pipelineOver(opened.store, counted(opened.store)) };
}

/** A process over the store: its own dedupe memory and problems sink. */
function pipelineOver(store: Store, counted: CountedCallSink) {
  return new Pipeline({
    dialects: builtinDialects(),
    registry: new ToolRegistry(),
    schemas: new SchemaCache(),
    ledger: new Ledger({ maxTraces: 10_000, maxCallsPerTrace: 100, traceTtlMs: 24 * HOUR }),
    store,
    metrics: createMetrics(),
    labels: new LabelCap(1000),
    failuresPerToolPerMinute: 2,
    redactor: storeRedactor('secrets'),
    executionGraceMs: 10_000,
    now: () => T0 + 5 * HOUR,
    counted,
  });
}

const deps = (store: Store, extra: Partial<ProblemRecorderDeps> = {}): ProblemRecorderDeps => ({
  sql: store.sql,
  redactor: storeRedactor('secrets'),
  maxPerService: 5,
  now: () => T0 + 5 * HOUR,
  ...extra,
});

/** A recorder that knows nothing at every hand-off: each problem's rows in statements of their own, every example. */
const inFull = (store: Store): CountedCallSink => ({
  extension: (calls, labels, facts) => new ProblemRecorder(deps(store)).extension(calls, labels, facts),
  executions: (released) => new ProblemRecorder(deps(store)).executions(released),
  trajectories: (done) => new ProblemRecorder(deps(store)).trajectories(done),
});

async function tables(store: Store) {
  const out: Record<string, unknown[]> = {};
  for (const [table, key] of [
    ['problems', 'service, id'],
    ['problem_hours', 'service, id, hour'],
    ['problem_models', 'service, id, model'],
    ['problem_examples', 'service, id, slot'],
  ])
    out[table!] = await store.sql.all(`SELECT * FROM ${table} ORDER BY ${key}`);
  return out;
}

/** Eight signatures of `refund` in `shop` (cap 5: three go to `_other`), and 40 invented names in `desk`. */
function batch(round: number): Span[] {
  numberSpansFrom(round * 1_000); // the same spans each time a round is built
  const shop = [
    '{}',
    '{"amount":"x"}',
    '{"amount":1,"items":[{}]}',
    '{"amount":1,"items":"x"}',
    '{"amount": 1',
    '[1]',
    "{'amount': 1}",
    '{"amount":1} thanks',
  ];
  const spans = shop.map((args, i) =>
    chat(args, { model: i % 2 ? 'claude-4' : 'gpt-4.1', timeMs: T0 + round * 1_000 + ((i * round) % 3) * HOUR }),
  );
  for (let i = 0; i < 40; i++)
    spans.push(chat('{}', { service: 'desk', name: `made_up_${i}`, timeMs: T0 + round * 1_000 + i }));
  return spans;
}

describe.each(storeEngines)('problem writes on $name', (engine) => {
  it.skipIf(engine.skip)('multi-row and left-out writes end the tables as writing everything in full', async () => {
    const memo = await setup(engine, (store) => new ProblemRecorder({ ...deps(store), maxPerService: 5 }));
    const full = await setup(engine, inFull);
    for (const round of [1, 2, 3, 3]) {
      const spans = batch(round);
      if (round === 3) spans.reverse();
      await memo.pipeline.ingestSpans(spans);
      await full.pipeline.ingestSpans(round === 3 ? batch(round).reverse() : batch(round));
    }
    const a = await tables(memo.store);
    expect(a).toEqual(await tables(full.store));

    // Cap 5 per service: `desk` has its 5 and `_other`, `shop` its 5 and `_other` with three signatures' calls.
    const shop = await listProblems(memo.store.sql, 'shop');
    expect(shop.map((p) => [p.id === OTHER_PROBLEM ? '_other' : 'own', p.occurrences]).sort()).toEqual([
      ['_other', 9],
      ...Array.from({ length: 5 }, () => ['own', 3]),
    ]);
    const desk = await listProblems(memo.store.sql, 'desk');
    expect(desk.find((p) => p.id === OTHER_PROBLEM)?.occurrences).toBe(35 * 3);
    const counted = await memo.store.sql.all<{ n: number | string }>(
      "SELECT SUM(count) AS n FROM call_minutes WHERE outcome IN ('InvalidJson', 'UnknownName', 'SchemaMismatch')",
    );
    expect([...shop, ...desk].reduce((s, p) => s + p.occurrences, 0)).toBe(Number(counted[0]?.n));
    expect(Number(counted[0]?.n)).toBe(3 * 48);
  });

  it.skipIf(engine.skip)(
    'a problem known to have its own row writes there; were the row gone, it is its own again',
    async () => {
      const memo = await setup(engine, (store) => new ProblemRecorder({ ...deps(store), maxPerService: 100 }));
      await memo.pipeline.ingestSpans([chat('{}', { timeMs: T0 + 1_000 })]);
      await new Promise((r) => setTimeout(r, 50)); // the recorder asks, after the commit, whether its own row exists
      await memo.pipeline.ingestSpans([chat('{}', { timeMs: T0 + 2_000, model: 'claude-4' })]);
      const [p] = await listProblems(memo.store.sql, 'shop');
      expect([p?.occurrences, p?.firstSeenMs, p?.lastSeenMs]).toEqual([2, T0 + 1_000, T0 + 2_000]);
      // Rows are never deleted; were they, the next write would put the problem's own row back, complete.
      for (const table of ['problems', 'problem_hours', 'problem_models'])
        await memo.store.sql.run(`DELETE FROM ${table}`);
      await memo.pipeline.ingestSpans([chat('{}', { timeMs: T0 + 3_000 })]);
      const [q] = await listProblems(memo.store.sql, 'shop');
      expect(q).toMatchObject({
        id: p!.id,
        outcome: 'SchemaMismatch',
        tool: 'refund',
        occurrences: 1,
        parts: p!.parts,
      });
      expect(await problemHours(memo.store.sql, 'shop', p!.id)).toEqual([{ hour: T0, count: 1 }]);
    },
  );

  it.skipIf(engine.skip)('more problems than one statement takes, all written', async () => {
    const memo = await setup(engine, (store) => new ProblemRecorder({ ...deps(store), maxPerService: 100 }));
    for (const round of [1, 2, 3]) await memo.pipeline.ingestSpans(batch(round));
    const desk = await listProblems(memo.store.sql, 'desk');
    expect(desk).toHaveLength(40);
    expect(desk.every((p) => p.occurrences === 3)).toBe(true);
    const hours = await memo.store.sql.all<{ n: number | string }>(
      "SELECT SUM(count) AS n FROM problem_hours WHERE service = 'desk'",
    );
    expect(Number(hours[0]?.n)).toBe(120);
  });

  it.skipIf(engine.skip)('the latest example is replaced only by a sighting latest_example_every newer', async () => {
    let store: Store | undefined;
    const every = 60_000;
    const { pipeline } = await setup(engine, (s) => {
      store = s;
      return new ProblemRecorder(deps(s, { latestExampleEveryMs: every }));
    });
    const latest = async () => {
      const [p] = await listProblems(store!.sql, 'shop');
      const ex = (await problemExamples(store!.sql, 'shop', p!.id)).find((e) => e.slot === 'latest');
      return [Number(ex?.time_ms) - T0, ex?.arguments, p!.occurrences, p!.lastSeenMs - T0];
    };
    await pipeline.ingestSpans([chat('{"n":1}', { timeMs: T0 + 1_000 })]);
    expect(await latest()).toEqual([1_000, '{"n":1}', 1, 1_000]);
    // Newer by less than 60 s: counted, not the latest.
    await pipeline.ingestSpans([chat('{"n":2}', { timeMs: T0 + 60_999 })]);
    expect(await latest()).toEqual([1_000, '{"n":1}', 2, 60_999]);
    // 60 s newer than the one written: the latest.
    await pipeline.ingestSpans([chat('{"n":3}', { timeMs: T0 + 61_000 }), chat('{"n":4}', { timeMs: T0 + 70_000 })]);
    expect(await latest()).toEqual([70_000, '{"n":4}', 4, 70_000]);
    // Older than the one written: never.
    await pipeline.ingestSpans([chat('{"n":5}', { timeMs: T0 + 2_000 })]);
    expect(await latest()).toEqual([70_000, '{"n":4}', 5, 70_000]);
    // Another process knows nothing of it: its first newer sighting is written.
    const again = pipelineOver(store!, new ProblemRecorder(deps(store!, { latestExampleEveryMs: every })));
    await again.ingestSpans([chat('{"n":6}', { timeMs: T0 + 70_001 })]);
    expect(await latest()).toEqual([70_001, '{"n":6}', 6, 70_001]);
  });
});

describe('multi-row statements', () => {
  it('chunks rows in powers of two up to 32, in order, with at most six statement texts', () => {
    const m = new MultiRow(
      [
        ['a', 'TEXT'],
        ['b', 'BIGINT'],
      ],
      'INSERT INTO t (a, b) SELECT a, b FROM v',
    );
    const texts = new Set<string>();
    for (const rows of [0, 1, 5, 37, 70]) {
      const runs: [string, readonly unknown[]][] = [];
      const params = Array.from({ length: rows }, (_, i) => [`r${i}`, i]).flat();
      m.run({ run: (sql, p = []) => void runs.push([sql, p]) }, params);
      for (const [sql] of runs) texts.add(sql);
      expect(runs.map(([, p]) => p.length / 2)).toEqual(
        { 0: [], 1: [1], 5: [4, 1], 37: [32, 4, 1], 70: [32, 32, 4, 2] }[rows],
      );
      expect(runs.flatMap(([, p]) => p)).toEqual(params);
      for (const [sql, p] of runs) expect(sql.split('?').length - 1).toBe(p.length);
    }
    expect(texts.size).toBeLessThanOrEqual(6);
    expect(m.text(2)).toBe(
      'WITH v (a, b) AS (VALUES (CAST(? AS TEXT), CAST(? AS BIGINT)), (CAST(? AS TEXT), CAST(? AS BIGINT)))\n' +
        'INSERT INTO t (a, b) SELECT a, b FROM v',
    );
  });
});

describe('the problem statement', () => {
  it("decides each row's target once: the row lookup and the cap's count are in its plan once each", () => {
    // A service at problems.max_per_service sends every new signature's failures to `_other`,
    // each through the lookup and the count; flattened into the five columns that read the choice,
    // they ran five times a row (SQLite's plan: ten reads of the problems table, five counts).
    const db = new Database(':memory:');
    migrateSqlite(db);
    const runs: [string, readonly unknown[]][] = [];
    const delta = {
      service: 's',
      signature: { hash: 'h', outcome: 'UnknownName', tool: '_unknown', canonical: 'c', parts: [] },
      firstMs: 1,
      lastMs: 1,
      occurrences: 1,
      hours: [0, 1],
      models: [],
      examples: [],
    } as unknown as ProblemDelta;
    problemExtension([delta], { dialect: 'sqlite', maxPerService: 1 })({
      run: (sql, p = []) => void runs.push([sql, p]),
    });
    const [sql, params] = runs.find(([text]) => text.includes('INSERT INTO problems '))!;
    const plan = db.prepare(`EXPLAIN ${sql}`).all(...params) as { opcode: string }[];
    expect(plan.filter((op) => op.opcode === 'OpenRead').length).toBe(2);
    expect(plan.filter((op) => op.opcode === 'AggStep' || op.opcode === 'Count').length).toBe(1);
    db.close();
  });
});
