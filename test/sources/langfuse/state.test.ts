/** The Langfuse state store, the same contract on SQLite and PostgreSQL. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLangfuseState } from '../../../src/sources/langfuse/state.js';
import { PostgresStore } from '../../../src/store/postgres.js';
import { SqliteStore } from '../../../src/store/sqlite.js';
import { emptyBatch, type Store } from '../../../src/store/store.js';
import { dropDatabase, freshDatabase, pgServer } from '../../helpers/pg.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sqlite(): Promise<Store> {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-lfstate-'));
  const store = new SqliteStore({ path: path.join(dir, 'db.sqlite'), synchronous: 'NORMAL' });
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

async function postgres(): Promise<Store> {
  const url = await freshDatabase();
  const store = await PostgresStore.open(url);
  cleanups.push(async () => {
    await store.close();
    await dropDatabase(url);
  });
  return store;
}

const kinds: [string, () => Promise<Store>, boolean][] = [
  ['sqlite', sqlite, false],
  ['postgres', postgres, pgServer().skip],
];

describe.each(kinds)('Langfuse state on %s', (_kind, open, skip) => {
  it.skipIf(skip)('keeps the watermark, seen ids, counts and the score outbox', async () => {
    const store = await open();
    const st = await openLangfuseState(store);
    expect(await st.load()).toMatchObject({ watermarkMs: null, mode: 'v2', observations: 0, calls: 0, windows: 0 });

    // Seen ids, counts and owed scores commit with the pipeline batch, in its transaction.
    const batch = emptyBatch();
    const row = { id: 's1', body: '{"x":1}', attempts: 0, nextMs: 1000 };
    batch.extensions.push(st.batchExtension([{ id: 'o1', startMs: 100 }, { id: 'o2', startMs: 5000 }], 3, [row, row]));
    await store.write(batch);
    expect(await st.load()).toMatchObject({ observations: 2, calls: 3 });
    expect([...(await st.seenSince(0)).entries()].sort()).toEqual([['o1', 100], ['o2', 5000]]);
    // A batch the store refuses leaves nothing behind.
    const bad = emptyBatch();
    bad.extensions.push(st.batchExtension([{ id: 'o3', startMs: 6000 }], 1, []));
    // A NOT NULL column left null: both stores refuse the whole transaction.
    bad.callAggregates.push({ minute: 0, source: 'langfuse', service: null as unknown as string, model: 'm', tool: 't', outcome: 'valid', reason: '', count: 1 });
    await expect(store.write(bad)).rejects.toThrow();
    expect((await st.seenSince(0)).has('o3')).toBe(false);
    expect((await st.load()).observations).toBe(2);

    await st.completeWindow({ watermarkMs: 9000, mode: 'v1', nowMs: 9500, keepSinceMs: 1000 });
    expect(await st.load()).toMatchObject({ watermarkMs: 9000, mode: 'v1', lastSuccessMs: 9500, windows: 1 });
    expect([...(await st.seenSince(0)).keys()]).toEqual(['o2']);
    await st.recordError('HTTP 500 (500)', 'v1', 9600);
    expect(await st.load()).toMatchObject({ lastError: 'HTTP 500 (500)', lastErrorMs: 9600, watermarkMs: 9000 });

    await st.enqueueScores([{ id: 's2', body: '{}', attempts: 0, nextMs: 2000 }, row]);
    expect(await st.pendingScores()).toBe(2);
    expect((await st.dueScores(1500, 10)).map((r) => r.id)).toEqual(['s1']);
    await st.rescheduleScore('s1', 1, 3000);
    expect((await st.dueScores(2500, 10)).map((r) => [r.id, r.attempts])).toEqual([['s2', 0]]);
    await st.deleteScores(['s1', 's2']);
    expect(await st.pendingScores()).toBe(0);
  });
});
