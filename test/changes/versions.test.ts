/**
 * Definition versions and change events through a real store write, on both engines
 * (src/changes/observe.ts → store.ts): versions with first/last seen and calls, one event per
 * transition, none for the baseline, none for a late span of the old value, one across two replicas.
 */
import { describe, expect, it } from 'vitest';
import { observeBatch, type ChangeKind } from '../../src/changes/observe.js';
import { changesExtension, listChanges, pruneChanges, toolVersions, valueCounts } from '../../src/changes/store.js';
import { DEFAULT_OBSERVE_LIMITS } from '../../src/changes/sink.js';
import type { CheckedCall, SpanFacts, ToolDef } from '../../src/model.js';
import { emptyBatch, type Store } from '../../src/store/store.js';
import { definitionVersion } from '../../src/tools/definition-hash.js';
import { freshStores, storeEngines } from '../helpers/engines.js';
import { callOf, modelSpan } from './model-span.js';

const schema = (required: string[]) => ({
  type: 'object',
  properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
  required,
});
const v3: ToolDef = { name: 'refund_order', description: 'Refund.', parameters: schema(['order_id']) };
const v4: ToolDef = { name: 'refund_order', description: 'Refund.', parameters: schema(['order_id', 'amount']) };
const search: ToolDef = { name: 'search', parameters: { type: 'object' } };

async function write(store: Store, facts: SpanFacts[], calls: CheckedCall[] = []) {
  const ext = changesExtension(store.sql.dialect, observeBatch(facts, calls, DEFAULT_OBSERVE_LIMITS));
  await store.write({ ...emptyBatch(), extensions: ext ? [ext] : [] });
}
const events = (store: Store, kind?: ChangeKind) =>
  listChanges(store.sql, { services: ['*'], limit: 100, ...(kind ? { kind } : {}) });

describe.each(storeEngines)('changes on $name', (engine) => {
  const fresh = freshStores(engine);

  it.skipIf(engine.skip)('records versions and one event per transition', async () => {
    const store = await fresh();
    const a = modelSpan(1_000, [v3, search]);
    const b = modelSpan(2_000, [v3, search]);
    await write(store, [a, b], [callOf(a, 'refund_order'), callOf(b, 'refund_order'), callOf(b, 'search')]);
    // the baseline: no change yet
    expect(await events(store)).toEqual([]);
    // the resent batch (same spans, the pipeline counted no call again) changes nothing
    await write(store, [a, b]);
    const c = modelSpan(10_000, [v4, search], 'gpt-4o', 'azure');
    const d = modelSpan(11_000, [v4], 'gpt-4o-mini', 'azure');
    await write(store, [c, d], [callOf(c, 'refund_order'), callOf(d, 'refund_order')]);

    const versions = await toolVersions(store.sql, 'shop', 'refund_order');
    expect(versions.map((v) => [v.version, v.firstSeenMs, v.lastSeenMs, v.calls])).toEqual([
      [definitionVersion(v3), 1_000, 2_000, 2],
      [definitionVersion(v4), 10_000, 11_000, 2],
    ]);
    expect(versions[1]!.definition.parameters).toEqual(schema(['amount', 'order_id']));

    const got = (await events(store)).map(({ id: _id, ...e }) => e);
    expect(got).toEqual(
      expect.arrayContaining([
        {
          timeMs: 10_000,
          service: 'shop',
          kind: 'tool_definition',
          tool: 'refund_order',
          from: definitionVersion(v3),
          to: definitionVersion(v4),
        },
        { timeMs: 10_000, service: 'shop', kind: 'provider', from: 'openai', to: 'azure' },
        { timeMs: 11_000, service: 'shop', kind: 'model', from: 'gpt-4o', to: 'gpt-4o-mini' },
        expect.objectContaining({ timeMs: 11_000, kind: 'tool_set' }),
      ]),
    );
    expect(got).toHaveLength(4);
    expect((await events(store, 'provider')).length).toBe(1);
  });

  it.skipIf(engine.skip)('a late span of the old value is no change back; a real switch back is', async () => {
    const store = await fresh();
    await write(store, [modelSpan(1_000, [v3])]);
    await write(store, [modelSpan(5_000, [v4])]);
    await write(store, [modelSpan(3_000, [v3])]);
    expect((await events(store, 'tool_definition')).map((e) => e.timeMs)).toEqual([5_000]);
    await write(store, [modelSpan(9_000, [v3])]);
    const back = await events(store, 'tool_definition');
    expect(back.map((e) => [e.timeMs, e.from, e.to])).toEqual([
      [9_000, definitionVersion(v4), definitionVersion(v3)],
      [5_000, definitionVersion(v3), definitionVersion(v4)],
    ]);
  });

  it.skipIf(engine.skip)('switches within one batch are each an event, in time order', async () => {
    const store = await fresh();
    await write(store, [modelSpan(3_000, [v3], 'm3'), modelSpan(1_000, [v3], 'm1'), modelSpan(2_000, [v3], 'm2')]);
    expect((await events(store, 'model')).map((e) => `${e.from}→${e.to}`)).toEqual(['m2→m3', 'm1→m2']);
  });

  it.skipIf(engine.skip)('a run of one value sighted out of order still ends in the latest value', async () => {
    const store = await fresh();
    await write(store, [modelSpan(1_000, [v3], 'a'), modelSpan(5_000, [v3], 'a'), modelSpan(3_000, [v4], 'b')]);
    expect((await events(store, 'model')).map((e) => `${e.timeMs} ${e.from}→${e.to}`)).toEqual([
      '5000 b→a',
      '3000 a→b',
    ]);
    expect((await events(store, 'tool_definition')).map((e) => e.timeMs)).toEqual([5_000, 3_000]);
  });

  it.skipIf(engine.skip)('a prompt change is an event; the agent span carries it too', async () => {
    const store = await fresh();
    await write(store, [{ ...modelSpan(1_000, [v3]), promptVersion: 'aaaa' }]);
    await write(store, [{ ...modelSpan(2_000, [v3]), role: 'agent', promptVersion: 'bbbb' }]);
    expect((await events(store, 'prompt')).map((e) => [e.timeMs, e.from, e.to])).toEqual([[2_000, 'aaaa', 'bbbb']]);
  });

  it.skipIf(engine.skip)('history is bounded per service', async () => {
    const store = await fresh();
    for (let i = 0; i < 5; i++) await write(store, [modelSpan(1_000 * (i + 1), [v3], `m${i}`)]);
    expect(await events(store, 'model')).toHaveLength(4);
    expect(await pruneChanges(store.sql, 2, 0)).toBe(2);
    expect((await events(store, 'model')).map((e) => e.to)).toEqual(['m4', 'm3']);
    // versions not seen since the cutoff go
    expect(await pruneChanges(store.sql, 2, 10_000)).toBe(1);
    expect(await toolVersions(store.sql, 'shop', 'refund_order')).toEqual([]);
  });

  it.skipIf(engine.skip)('a reader sees only its services', async () => {
    const store = await fresh();
    await write(store, [modelSpan(1_000, [v3], 'a', 'p', 'shop'), modelSpan(1_000, [v3], 'a', 'p', 'bank')]);
    await write(store, [modelSpan(2_000, [v3], 'b', 'p', 'shop'), modelSpan(2_000, [v3], 'b', 'p', 'bank')]);
    const seen = await listChanges(store.sql, { services: ['sh*'], limit: 10 });
    expect(seen.map((e) => e.service)).toEqual(['shop']);
    expect(await listChanges(store.sql, { services: [], limit: 10 })).toEqual([]);
    expect(await listChanges(store.sql, { services: ['*'], sinceMs: 3_000, limit: 10 })).toEqual([]);
  });

  it.skipIf(engine.skip)('two tool names clipped to one count under one row of the batch', async () => {
    // The batch's counts go in one multi-row statement, which PostgreSQL refuses when a key repeats.
    const store = await fresh();
    const long = 'x'.repeat(DEFAULT_OBSERVE_LIMITS.maxName);
    const f = { ...modelSpan(60_000, [], 'gpt-4o', 'openai'), offered: undefined };
    await write(store, [f], [callOf(f, `${long}a`), callOf(f, `${long}b`), callOf(f, 'search')]);
    const counts = await valueCounts(store.sql, { kind: 'provider' });
    expect(counts.map((c) => [c.tool, c.count]).sort()).toEqual([
      ['search', 1],
      [long, 2],
    ]);
  });
});

describe.skipIf(storeEngines[1]!.skip)('two replicas on PostgreSQL', () => {
  it('see the same switch in concurrent batches and write one event', async () => {
    const { PostgresStore } = await import('../../src/store/postgres.js');
    const { freshDatabase, dropDatabase } = await import('../helpers/pg.js');
    const url = await freshDatabase();
    const r1 = await PostgresStore.open(url);
    const r2 = await PostgresStore.open(url);
    try {
      await write(r1, [modelSpan(1_000, [v3])]);
      for (let i = 0; i < 10; i++) {
        const t = 2_000 + i * 1_000;
        const def = i % 2 === 0 ? v4 : v3;
        const a = modelSpan(t, [def], `m${i}`);
        const b = modelSpan(t + 1, [def], `m${i}`);
        await Promise.all([write(r1, [a]), write(r2, [b])]);
      }
      const defs = await events(r1, 'tool_definition');
      expect(defs).toHaveLength(10);
      expect(new Set(defs.map((e) => e.timeMs)).size).toBe(10);
      expect(await events(r1, 'model')).toHaveLength(10);
    } finally {
      await r1.close();
      await r2.close();
      await dropDatabase(url);
    }
  });
});
