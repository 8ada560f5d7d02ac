/**
 * Completing idle candidates drains the whole backlog, not one batch of it: with feedback_rate 1
 * every trace is a candidate, and a store that completed only 5,000 per run would fall behind any
 * traffic above that and keep every trace's steps until retention.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { JudgeStore, type TrajectoryWrite } from '../../src/judge/store.js';
import { COMPLETE_ROWS, DELETE_DROPPED_STEPS } from '../../src/judge/complete-chunk.js';
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

  it('one chunk mixes outcomes and probabilities: each row gets its own, only the dropped lose their steps', async () => {
    store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    const judge = new JudgeStore(store.sql);
    // Positions 0.5; services a (p 0.9: pending), b (p 0.6: pending), c (p 0.1: dropped).
    const writes = Array.from({ length: 30 }, (_, i) => ({ ...candidate(i), service: 'abc'[i % 3]! }));
    await store.write({ ...emptyBatch(), extensions: [judge.trajectories.ingestExtension(writes)] });
    const p: Record<string, number> = { a: 0.9, b: 0.6, c: 0.1 };
    expect(await judge.trajectories.finalize(10_000, 1000, (s) => p[s]!)).toEqual({ pending: 20, dropped: 10 });
    const rows = await store.sql.all<{ service: string; status: string; probability: number; steps: number }>(
      `SELECT t.service, t.status, t.probability, (SELECT COUNT(*) FROM judge_steps s WHERE s.trajectory = t.id) AS steps
       FROM judge_trajectories t GROUP BY t.service, t.status, t.probability ORDER BY t.service`,
    );
    expect(rows.map((r) => [r.service, r.status, r.probability, Number(r.steps)])).toEqual([
      ['a', 'pending', 0.9, 1],
      ['b', 'pending', 0.6, 1],
      ['c', 'dropped', 0.1, 0],
    ]);
  });

  it('a candidate a span reached after the SELECT stays open and keeps its steps', async () => {
    store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    const judge = new JudgeStore(store.sql);
    await store.write({
      ...emptyBatch(),
      extensions: [judge.trajectories.ingestExtension([0, 1, 2].map(candidate))],
    });
    const db = store.db;
    let touched = false;
    // Asked inside the chunk's transaction, before its UPDATEs: as if a span of trace 1 had just arrived.
    const res = await judge.trajectories.finalize(10_000, 1000, () => {
      if (!touched) {
        touched = true;
        db.prepare('UPDATE judge_trajectories SET last_seen_ms = ? WHERE trace_id = ?').run(
          9_500,
          candidate(1).traceId,
        );
      }
      return 0;
    });
    expect(res).toEqual({ pending: 0, dropped: 2 });
    const left = await store.sql.all<{ trace_id: string; status: string }>(
      'SELECT t.trace_id, t.status FROM judge_trajectories t JOIN judge_steps s ON s.trajectory = t.id',
    );
    expect(left).toEqual([{ trace_id: candidate(1).traceId, status: 'open' }]);
  });

  it('looks its rows up by trace id, not by scanning the open or the dropped through the status index', async () => {
    store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    for (const text of [COMPLETE_ROWS, DELETE_DROPPED_STEPS]) {
      const params = Array.from(text.matchAll(/\?/g), () => 'x');
      const plan = (store.db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as { detail: string }[]).map(
        (r) => r.detail,
      );
      expect(plan.join(' | ')).not.toMatch(/judge_trajectories_status/);
      expect(
        plan.some((d) =>
          /SEARCH judge_trajectories USING .*INDEX sqlite_autoindex_judge_trajectories_1 \(trace_id=\?\)/.test(d),
        ),
      ).toBe(true);
    }
  });
});
