/**
 * A model step's offered tools are stored once per distinct list (judge_offered), not in every step:
 * the steps name their list, a trajectory read back has each model step's tools in place, steps
 * stored before (tools inside the payload) read as they were, and retention removes a list only when
 * no step refers to it and no batch has used it for the retention period. On SQLite and PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SpanFacts, ToolDef } from '../../src/model.js';
import { JudgeStore } from '../../src/judge/store.js';
import { TrajectorySink } from '../../src/judge/trajectory.js';
import { storeRedactor } from '../../src/redact/stored.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { emptyBatch, type Store } from '../../src/store/store.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';

const SUPPORT: readonly ToolDef[] = Object.freeze([
  Object.freeze({ name: 'lookup_order', description: 'Look up an order.', parameters: { type: 'object' } }),
  Object.freeze({ name: 'refund_order', description: 'Refund an order.', parameters: { type: 'object' } }),
]);
const TRAVEL: readonly ToolDef[] = Object.freeze([
  Object.freeze({ name: 'get_weather', description: 'Weather for a city.', parameters: { type: 'object' } }),
]);

const traceOf = (i: number) => i.toString(16).padStart(32, '0');

function model(traceId: string, spanId: string, offered: readonly ToolDef[] | undefined): SpanFacts {
  return {
    dialect: 'genai',
    traceId,
    spanId,
    parentSpanId: '',
    service: 'agent',
    startTimeMs: 1000 + Number.parseInt(spanId, 16),
    endTimeMs: 1001 + Number.parseInt(spanId, 16),
    role: 'model',
    model: 'gpt-4o',
    ...(offered ? { offered: offered as ToolDef[] } : {}),
    proposals: [{ callId: `c${spanId}`, name: 'lookup_order', args: { kind: 'string', raw: '{}' }, index: 0 }],
    replays: [],
    userMessage: 'Where is my order?',
  } as SpanFacts;
}

const kinds: [string, { skip: boolean; open(): Promise<{ store: Store; dispose(): Promise<void> }> }][] = [
  [
    'sqlite',
    {
      skip: false,
      async open() {
        const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
        return { store, dispose: () => store.close() };
      },
    },
  ],
  [
    'postgres',
    {
      skip: pgServer().skip,
      async open() {
        const url = await freshDatabase();
        const store = await PostgresStore.open(url);
        return {
          store,
          async dispose() {
            await store.close();
            await dropDatabase(url);
          },
        };
      },
    },
  ],
];

describe.each(kinds)('offered tools stored once: %s', (_name, kind) => {
  let open: { store: Store; dispose(): Promise<void> } | undefined;
  afterEach(async () => {
    await open?.dispose();
    open = undefined;
  });

  const setUp = async (nowMs: { v: number }) => {
    open = await kind.open();
    const judge = new JudgeStore(open.store.sql);
    const sink = new TrajectorySink({
      project: 'default',
      policy: { sampleRate: 1, serviceRates: {} },
      store: judge,
      now: () => nowMs.v,
      redactor: storeRedactor('secrets'),
    });
    const store = open.store;
    const ingest = (facts: SpanFacts[]) =>
      store.write({ ...emptyBatch(), extensions: [...sink.collect({ source: 'otlp', facts, calls: [] })] });
    const count = async (sql: string) => Number((await store.sql.all<{ n: unknown }>(sql))[0]!.n);
    return { judge, store, ingest, count };
  };

  it.skipIf(kind.skip)(
    'one row per distinct list; each model step reads back with its own list, in its place',
    async () => {
      const now = { v: 5000 };
      const { judge, ingest, count } = await setUp(now);
      // Two batches, three traces, five model steps over two lists and one step that offered none.
      await ingest([
        model(traceOf(1), '01', SUPPORT),
        model(traceOf(1), '02', SUPPORT),
        model(traceOf(2), '03', TRAVEL),
      ]);
      await ingest([
        model(traceOf(3), '04', SUPPORT),
        model(traceOf(3), '05', undefined),
        model(traceOf(2), '06', TRAVEL),
      ]);

      expect(await count('SELECT COUNT(*) AS n FROM judge_offered')).toBe(2);
      expect(await count('SELECT COUNT(*) AS n FROM judge_steps WHERE offered IS NOT NULL')).toBe(5);
      // No step's payload holds the tools any more.
      expect(await count("SELECT COUNT(*) AS n FROM judge_steps WHERE payload LIKE '%description%'")).toBe(0);

      const one = await judge.trajectories.trajectory(traceOf(1));
      expect(one!.steps.map((s) => s.kind === 'model' && s.offered?.map((t) => t.name))).toEqual([
        ['lookup_order', 'refund_order'],
        ['lookup_order', 'refund_order'],
      ]);
      expect(one!.tools.map((t) => t.description)).toEqual(['Look up an order.', 'Refund an order.']);
      // The step is the object it was at ingest: the tools before `seq`, as when they were inside the payload.
      expect(Object.keys(one!.steps[0]!).slice(-2)).toEqual(['offered', 'seq']);
      const three = await judge.trajectories.trajectory(traceOf(3));
      expect(three!.steps.map((s) => s.kind === 'model' && s.offered?.length)).toEqual([2, undefined]);
      const two = await judge.trajectories.trajectory(traceOf(2));
      expect(two!.tools).toEqual([
        { name: 'get_weather', description: 'Weather for a city.', parameters: { type: 'object' } },
      ]);
    },
  );

  it.skipIf(kind.skip)('a step stored before judge_offered (tools inside its payload) reads as it was', async () => {
    const now = { v: 5000 };
    const { judge, store, ingest } = await setUp(now);
    await ingest([model(traceOf(7), '01', undefined)]);
    const legacy = JSON.stringify({
      kind: 'model',
      spanId: '02',
      startMs: 1002,
      endMs: 1003,
      calls: [],
      offered: [{ name: 'old_tool' }],
      seq: 9,
    });
    await store.sql.run(
      `INSERT INTO judge_steps (trajectory, span_id, start_ms, end_ms, kind, payload)
       SELECT id, ?, ?, ?, ?, ? FROM judge_trajectories WHERE trace_id = ?`,
      ['02', 1002, 1003, 'model', legacy, traceOf(7)],
    );
    const t = await judge.trajectories.trajectory(traceOf(7));
    expect(t!.steps[1]).toEqual(JSON.parse(legacy));
    expect(t!.tools).toEqual([{ name: 'old_tool' }]);
  });

  it.skipIf(kind.skip)(
    'retention removes a list only when no step refers to it and no batch used it since the cutoff',
    async () => {
      const now = { v: 1_000_000 };
      const { judge, ingest, count } = await setUp(now);
      await ingest([model(traceOf(1), '01', SUPPORT)]);
      await ingest([model(traceOf(2), '02', TRAVEL)]);
      // Both complete: 1 is dropped (its steps deleted), 2 is queued (pending keeps its steps).
      const done = await judge.trajectories.finalize(2_000_000, 1000, (_s, _f) => 1, undefined);
      expect(done).toEqual({ pending: 2, dropped: 0 });
      await judge.sql.run("UPDATE judge_trajectories SET status = 'dropped' WHERE trace_id = ?", [traceOf(1)]);
      await judge.sql.run(
        'DELETE FROM judge_steps WHERE trajectory IN (SELECT id FROM judge_trajectories WHERE trace_id = ?)',
        [traceOf(1)],
      );

      // A cutoff before the lists were last used keeps both.
      await judge.trajectories.prune(now.v - 1);
      expect(await count('SELECT COUNT(*) AS n FROM judge_offered')).toBe(2);
      // A later one removes SUPPORT (no step left) and keeps TRAVEL (trace 2's pending step refers to it).
      await judge.trajectories.prune(3_000_000);
      const left = await judge.sql.all<{ tools: string }>('SELECT tools FROM judge_offered');
      expect(left.map((r) => JSON.parse(r.tools)[0].name)).toEqual(['get_weather']);
      expect((await judge.trajectories.trajectory(traceOf(2)))!.tools.map((t) => t.name)).toEqual(['get_weather']);

      // A list used again after it was removed is stored again with the batch that uses it.
      now.v = 4_000_000;
      await ingest([model(traceOf(3), '03', SUPPORT)]);
      expect((await judge.trajectories.trajectory(traceOf(3)))!.tools.map((t) => t.name)).toEqual([
        'lookup_order',
        'refund_order',
      ]);
    },
  );

  it.skipIf(kind.skip)(
    'batches keep a list in use from retention: its last use moves forward at most once a minute',
    async () => {
      const now = { v: 1_000_000 };
      const { judge, ingest } = await setUp(now);
      const lastUsed = async () =>
        Number((await judge.sql.all<{ t: unknown }>('SELECT last_used_ms AS t FROM judge_offered'))[0]!.t);
      await ingest([model(traceOf(1), '01', SUPPORT)]);
      expect(await lastUsed()).toBe(1_000_000);
      now.v += 30_000;
      await ingest([model(traceOf(2), '02', SUPPORT)]);
      expect(await lastUsed()).toBe(1_000_000);
      now.v += 40_000;
      await ingest([model(traceOf(3), '03', SUPPORT)]);
      expect(await lastUsed()).toBe(1_070_000);
      // Kept by a prune whose cutoff falls between the first use and the refreshed one, with no step left.
      await judge.sql.run('DELETE FROM judge_steps');
      await judge.trajectories.prune(1_050_000);
      expect(await lastUsed()).toBe(1_070_000);
    },
  );

  it.skipIf(kind.skip)('a stored list is never overwritten: a batch naming the same key adds nothing', async () => {
    const now = { v: 5000 };
    const { judge, store, ingest } = await setUp(now);
    await ingest([model(traceOf(1), '01', SUPPORT)]);
    const [row] = await judge.sql.all<{ ref: string; tools: string }>('SELECT ref, tools FROM judge_offered');
    // Another sender's batch claiming that key for other content (it would need a 128-bit hash match).
    await store.write({
      ...emptyBatch(),
      extensions: [judge.trajectories.ingestExtension([], [{ ref: row!.ref, json: '[{"name":"evil"}]' }])],
    });
    expect(await judge.sql.all('SELECT ref, tools FROM judge_offered')).toEqual([row]);
  });

  it.skipIf(kind.skip)(
    'a list that is gone leaves its steps without tools; an unreadable one leaves them out',
    async () => {
      const now = { v: 5000 };
      const { judge, ingest } = await setUp(now);
      await ingest([
        model(traceOf(1), '01', SUPPORT),
        model(traceOf(1), '02', TRAVEL),
        model(traceOf(1), '03', undefined),
      ]);
      const refs = await judge.sql.all<{ ref: string; tools: string }>('SELECT ref, tools FROM judge_offered');
      const support = refs.find((r) => r.tools.includes('refund_order'))!.ref;
      const travel = refs.find((r) => r.tools.includes('get_weather'))!.ref;
      await judge.sql.run('DELETE FROM judge_offered WHERE ref = ?', [support]);
      await judge.sql.run("UPDATE judge_offered SET tools = '[{' WHERE ref = ?", [travel]);
      const t = await judge.trajectories.trajectory(traceOf(1));
      expect(t!.steps.map((s) => [s.spanId, s.kind === 'model' ? s.offered : 'tool'])).toEqual([
        ['01', undefined],
        ['03', undefined],
      ]);
    },
  );
});
