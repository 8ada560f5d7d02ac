/**
 * Definition versions and per-version minute counts written by a group commit of several batches
 * (both engines sum them for the group, src/store/group-extensions.ts) store exactly what the same
 * batches store one transaction each: calls and counts added, first and last seen widened, and the
 * change events unchanged.
 */
import { describe, expect, it } from 'vitest';
import { observeBatch } from '../../src/changes/observe.js';
import { changesExtension, listChanges } from '../../src/changes/store.js';
import { DEFAULT_OBSERVE_LIMITS } from '../../src/changes/sink.js';
import type { ToolDef } from '../../src/model.js';
import { emptyBatch, type Store, type WriteBatch } from '../../src/store/store.js';
import { freshStores, storeEngines } from '../helpers/engines.js';
import { callOf, modelSpan } from './model-span.js';

const refund: ToolDef = { name: 'refund_order', parameters: { type: 'object', required: ['order_id'] } };
const refund2: ToolDef = { name: 'refund_order', parameters: { type: 'object', required: ['order_id', 'amount'] } };
const search: ToolDef = { name: 'search', parameters: { type: 'object' } };

/** Batches that share versions and minutes (and one that changes a definition), each built afresh per store. */
function batches(dialect: Store['sql']['dialect']): WriteBatch[] {
  const out: WriteBatch[] = [];
  const spec: [number, ToolDef[], string, string][] = [
    [60_000, [refund, search], 'shop', 'openai'],
    [61_000, [refund, search], 'shop', 'openai'],
    [59_000, [refund, search], 'shop', 'azure'],
    [125_000, [refund2, search], 'shop', 'openai'],
    [62_000, [search], 'crm', 'openai'],
    [63_000, [refund, search], 'shop', 'openai'],
  ];
  for (const [t, offered, service, provider] of spec) {
    const a = modelSpan(t, offered, 'gpt-4o', provider, service);
    const b = modelSpan(t + 500, offered, 'gpt-4o', provider, service);
    const calls = [callOf(a, offered[0]!.name), callOf(b, 'search', 'UnknownName'), callOf(b, offered[0]!.name)];
    const ext = changesExtension(dialect, observeBatch([a, b], calls, DEFAULT_OBSERVE_LIMITS));
    out.push({ ...emptyBatch(), extensions: ext ? [ext] : [] });
  }
  return out;
}

const tables = async (store: Store) => ({
  versions: await store.sql.all(
    'SELECT service, tool, version, first_seen, last_seen, calls FROM tool_versions ORDER BY service, tool, version',
  ),
  minutes: await store.sql.all(
    `SELECT minute, service, tool, version, provider, outcome, count FROM version_minutes
     ORDER BY minute, service, tool, version, provider, outcome`,
  ),
  events: (await listChanges(store.sql, { services: ['*'], limit: 100 })).map(({ id: _id, ...e }) => e),
});

describe.each(storeEngines)('a group commit of changes on $name', (engine) => {
  const fresh = freshStores(engine);

  it.skipIf(engine.skip)('stores what the batches store one by one', async () => {
    const alone = await fresh();
    for (const b of batches(alone.sql.dialect)) await alone.write(b);
    const grouped = await fresh();
    // Written at once: one group commit (the queue flushes on the next turn).
    await Promise.all(batches(grouped.sql.dialect).map((b) => grouped.write(b)));
    const expected = await tables(alone);
    expect(expected.versions.length).toBeGreaterThan(2);
    expect(expected.minutes.length).toBeGreaterThan(4);
    expect(await tables(grouped)).toEqual(expected);
  });
});
