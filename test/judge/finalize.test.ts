/**
 * Completing idle candidates drains the whole backlog, not one batch of it: with feedback_rate 1
 * every trace is a candidate, and a store that completed only 5,000 per run would fall behind any
 * traffic above that and keep every trace's steps until retention.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { JudgeStore, type TrajectoryWrite } from '../../src/judge/store.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { emptyBatch } from '../../src/store/store.js';

let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

const candidate = (i: number): TrajectoryWrite => {
  const traceId = i.toString(16).padStart(32, '0');
  return {
    traceId,
    service: 'agent',
    firstMs: 1000,
    endMs: 1001,
    seenMs: 1000,
    hasFailure: false,
    position: 0.5,
    steps: [
      { spanId: 'a'.repeat(16), startMs: 1000, endMs: 1001, kind: 'model', payload: '{"kind":"model","calls":[]}' },
    ],
  };
};

const count = async (s: SqliteStore, sql: string) => Number((await s.sql.all<{ n: unknown }>(sql))[0]!.n);

describe('JudgeStore.finalize', () => {
  it('completes every idle candidate in batches, more than one batch holds', async () => {
    store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    const judge = new JudgeStore(store.sql);
    const n = 5003;
    await store.write({
      ...emptyBatch(),
      extensions: [judge.trajectories.ingestExtension(Array.from({ length: n }, (_, i) => candidate(i)))],
    });
    expect(await count(store, 'SELECT COUNT(*) AS n FROM judge_steps')).toBe(n);

    // One batch only: the rest stays open for the next call.
    expect(await judge.trajectories.finalize(10_000, 1000, () => 0, undefined, 1)).toEqual({
      pending: 0,
      dropped: 5000,
    });
    expect(await count(store, "SELECT COUNT(*) AS n FROM judge_trajectories WHERE status = 'open'")).toBe(3);

    await store.write({
      ...emptyBatch(),
      extensions: [judge.trajectories.ingestExtension([5003, 5004].map(candidate))],
    });
    // The default drains everything idle; a probability above the position queues it instead.
    expect(
      await judge.trajectories.finalize(
        10_000,
        1000,
        (_s, _f, negative) => (negative ? 1 : 0),
        async (ids) => new Set(ids.slice(0, 1)),
      ),
    ).toEqual({
      pending: 1,
      dropped: 4,
    });
    expect(await count(store, "SELECT COUNT(*) AS n FROM judge_trajectories WHERE status = 'open'")).toBe(0);
    expect(await count(store, 'SELECT COUNT(*) AS n FROM judge_steps')).toBe(1);
  });
  it('lets the event loop run while it completes a backlog (on SQLite every statement is synchronous)', async () => {
    store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    const judge = new JudgeStore(store.sql);
    await store.write({
      ...emptyBatch(),
      extensions: [judge.trajectories.ingestExtension(Array.from({ length: 1000 }, (_, i) => candidate(i)))],
    });
    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const res = await judge.trajectories.finalize(
      10_000,
      1000,
      (_s, _f, negative) => (negative ? 1 : 0),
      async (ids) => new Set(ids.filter((_, i) => i % 10 === 0)),
    );
    done = true;
    expect(res).toEqual({ pending: 100, dropped: 900 });
    expect(await count(store, 'SELECT COUNT(*) AS n FROM judge_steps')).toBe(100);
    // A turn between every 100 candidates: ingest is never held for the whole backlog.
    expect(turns).toBeGreaterThanOrEqual(9);
  });
});
