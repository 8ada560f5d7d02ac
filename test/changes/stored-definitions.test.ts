/**
 * The stored-definitions memo (src/changes/stored-definitions.ts): a definition is written when the
 * process has not committed its version within the hour, and only then — and, through the server's
 * sink on both engines, a version the retention removed and then seen again has its definition
 * back, even though the process had stored it before.
 */
import { describe, expect, it } from 'vitest';
import { changesSink, DEFAULT_OBSERVE_LIMITS } from '../../src/changes/sink.js';
import { pruneChanges, toolVersions } from '../../src/changes/store.js';
import { KNOWN_FOR_MS, StoredDefinitions } from '../../src/changes/stored-definitions.js';
import type { ToolDef } from '../../src/model.js';
import { storeFileSchema } from '../../src/store/config.js';
import { emptyBatch, type Store } from '../../src/store/store.js';
import { definitionVersion } from '../../src/tools/definition-hash.js';
import { freshStores, storeEngines } from '../helpers/engines.js';
import { callOf, modelSpan } from './model-span.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('StoredDefinitions', () => {
  const keys = (vs: readonly { key: string }[]) => vs.map((v) => v.key);

  it('writes a definition until its version commits, then not while the commit is under an hour old', () => {
    let now = 10 * DAY;
    const m = new StoredDefinitions(() => now);
    const a = { key: 'shop\0lookup\0v1', lastMs: now };
    const b = { key: 'shop\0refund\0v1', lastMs: now };
    expect(keys(m.toWrite([a, b]))).toEqual([a.key, b.key]);
    // Not committed (a rolled-back batch teaches nothing): still written.
    expect(keys(m.toWrite([a, b]))).toEqual([a.key, b.key]);
    m.committed([a]);
    expect(keys(m.toWrite([a, b]))).toEqual([b.key]);
    now += KNOWN_FOR_MS;
    expect(m.toWrite([a])).toEqual([]);
    now += 1;
    expect(keys(m.toWrite([a]))).toEqual([a.key]);
    // A later commit moves it on; an older one (a late span) does not move it back.
    m.committed([{ ...a, lastMs: now }]);
    m.committed([{ ...a, lastMs: 0 }]);
    expect(m.toWrite([a])).toEqual([]);
  });

  it('a version whose spans are old is written every time (its row may be pruned any hour)', () => {
    const now = 10 * DAY;
    const m = new StoredDefinitions(() => now);
    const old = { key: 'shop\0lookup\0v1', lastMs: now - 2 * HOUR };
    m.committed([old]);
    expect(keys(m.toWrite([old]))).toEqual([old.key]);
  });

  it('trusts an hour, far inside the shortest retention any replica can be configured with', () => {
    // The rule's margin for clocks that differ (23 hours) is the shortest retention less that hour.
    expect(storeFileSchema.properties.retention_days.minimum * DAY - KNOWN_FOR_MS).toBeGreaterThanOrEqual(23 * HOUR);
  });

  it('is bounded: past 100,000 versions it starts over', () => {
    const now = 10 * DAY;
    const m = new StoredDefinitions(() => now);
    const first = { key: 'v0', lastMs: now };
    m.committed([first]);
    const many = Array.from({ length: 100_000 }, (_, i) => ({ key: `v${i + 1}`, lastMs: now }));
    m.committed(many);
    expect(keys(m.toWrite([first]))).toEqual(['v0']);
    expect(m.toWrite([many.at(-1)!])).toEqual([]);
  });
});

const lookup: ToolDef = Object.freeze({ name: 'lookup', description: 'Look up.', parameters: { type: 'object' } });

describe.each(storeEngines)('definitions through the sink on $name', (engine) => {
  const fresh = freshStores(engine);

  async function write(store: Store, sink: ReturnType<typeof changesSink>, t: number) {
    const span = modelSpan(t, [lookup]);
    const exts = sink.collect({ source: 'otlp', facts: [span], calls: [callOf(span, 'lookup')] });
    await store.write({ ...emptyBatch(), extensions: [...exts] });
  }

  it.skipIf(engine.skip)('a version removed by the retention and seen again has its definition back', async () => {
    const store = await fresh();
    let now = 100 * DAY;
    const sink = changesSink(store.sql, DEFAULT_OBSERVE_LIMITS, () => now);
    await write(store, sink, now);
    await write(store, sink, now + 1_000);
    const stored = await toolVersions(store.sql, 'shop', 'lookup');
    expect(stored.map((v) => [v.version, v.calls, v.definition.description])).toEqual([
      [definitionVersion(lookup), 2, 'Look up.'],
    ]);
    // Two days without it: the retention (a day here) removes the version and its definition.
    now += 2 * DAY;
    await pruneChanges(store.sql, 1000, now - DAY);
    expect(await toolVersions(store.sql, 'shop', 'lookup')).toEqual([]);
    expect(await store.sql.all('SELECT service FROM tool_definitions')).toEqual([]);
    // Offered again: the same process writes its definition again.
    await write(store, sink, now);
    const back = await toolVersions(store.sql, 'shop', 'lookup');
    expect(back.map((v) => [v.version, v.calls, v.firstSeenMs, v.definition.description])).toEqual([
      [definitionVersion(lookup), 1, now, 'Look up.'],
    ]);
  });

  it.skipIf(engine.skip)('the retention keeps the definition of a version it keeps', async () => {
    const store = await fresh();
    const now = 100 * DAY;
    const sink = changesSink(store.sql, DEFAULT_OBSERVE_LIMITS, () => now);
    await write(store, sink, now - 3 * DAY);
    await write(store, sink, now);
    await pruneChanges(store.sql, 1000, now - DAY);
    expect((await toolVersions(store.sql, 'shop', 'lookup')).map((v) => v.definition.name)).toEqual(['lookup']);
  });
});
