/** The Langfuse state store, the same contract on SQLite and PostgreSQL. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryPolicy, OutboxMessage, SendOutcome } from '../../../src/store/outbox.js';
import { LangfuseState, SCORES_DESTINATION } from '../../../src/sources/langfuse/state.js';
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
    const st = await LangfuseState.open(store.sql);
    expect(await st.load()).toMatchObject({ watermarkMs: null, mode: 'v2', observations: 0, calls: 0, windows: 0 });

    // Seen ids, counts and owed scores commit with the pipeline batch, in its transaction.
    const batch = emptyBatch();
    const row = { id: 's1', traceId: 't1', name: 'x', value: 1, dataType: 'NUMERIC' as const };
    batch.extensions.push(
      st.batchExtension(
        [
          { id: 'o1', startMs: 100 },
          { id: 'o2', startMs: 5000 },
        ],
        3,
        [row, row],
        1000,
      ),
    );
    await store.write(batch);
    expect(await st.load()).toMatchObject({ observations: 2, calls: 3 });
    expect([...(await st.seenSince(0)).entries()].sort()).toEqual([
      ['o1', 100],
      ['o2', 5000],
    ]);
    // A batch the store refuses leaves nothing behind.
    const bad = emptyBatch();
    bad.extensions.push(st.batchExtension([{ id: 'o3', startMs: 6000 }], 1, [], 6000));
    // A NOT NULL column left null: both stores refuse the whole transaction.
    bad.callAggregates.push({
      minute: 0,
      source: 'langfuse',
      service: null as unknown as string,
      model: 'm',
      tool: 't',
      outcome: 'valid',
      reason: '',
      count: 1,
    });
    await expect(store.write(bad)).rejects.toThrow();
    expect((await st.seenSince(0)).has('o3')).toBe(false);
    expect((await st.load()).observations).toBe(2);

    await st.completeWindow({ watermarkMs: 9000, mode: 'v1', nowMs: 9500, keepSinceMs: 1000 });
    expect(await st.load()).toMatchObject({ watermarkMs: 9000, mode: 'v1', lastSuccessMs: 9500, windows: 1 });
    expect([...(await st.seenSince(0)).keys()]).toEqual(['o2']);
    await st.recordError('HTTP 500 (500)', 'v1', 9600);
    expect(await st.load()).toMatchObject({ lastError: 'HTTP 500 (500)', lastErrorMs: 9600, watermarkMs: 9000 });

    // s1 is still pending: queuing it again adds nothing.
    await st.enqueueScores([{ ...row, id: 's2' }, row], 2000);
    expect(await st.pendingScores()).toBe(2);
    // Through the delivery outbox: what is due, a retry rescheduled (1 s backoff), the sent ones gone.
    const policy: DeliveryPolicy = {
      ordered: false,
      backoff: { baseMs: 1000, maxMs: 60_000 },
      minIntervalMs: 0,
      maxRetryAfterMs: 60_000,
      keepDone: false,
      perPass: 10,
    };
    const pass = async (nowMs: number, outcome: SendOutcome) => {
      const tried: [string, number][] = [];
      const send = async (m: OutboxMessage) => (
        tried.push([(JSON.parse(m.payload) as { id: string }).id, m.attempts]), outcome
      );
      await st.outbox.deliver(SCORES_DESTINATION, { policy, now: () => nowMs, send });
      return tried;
    };
    expect(await pass(1500, { kind: 'retry', error: '500' })).toEqual([['s1', 0]]);
    expect(await pass(2400, { kind: 'ok' })).toEqual([['s2', 0]]);
    expect(await st.pendingScores()).toBe(1);
    expect(await pass(2600, { kind: 'ok' })).toEqual([['s1', 1]]);
    expect(await st.pendingScores()).toBe(0);
  });
});
