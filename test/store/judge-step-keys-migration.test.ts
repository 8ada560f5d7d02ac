/**
 * Migration 19 on both engines: trajectories get sequential ids (SQLite in first-seen order) and
 * their steps move under them, every step of a stored trajectory kept; a step whose trajectory is
 * gone is not carried over; a trajectory stored afterwards gets a greater id and its steps join it.
 */
import { describe, expect, it } from 'vitest';
import { JudgeStore } from '../../src/judge/store.js';
import { migrations } from '../../src/store/migrations/index.js';
import { emptyBatch, type Store } from '../../src/store/store.js';
import { migratePostgres, migrateSqlite } from '../helpers/migrated-store.js';
import { pgServer } from '../helpers/pg.js';

const BEFORE = migrations.filter((m) => m.version < 19);
const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const step = (spanId: string, startMs: number) =>
  JSON.stringify({ kind: 'model', spanId, startMs, endMs: startMs + 1, calls: [] });
const header = (traceId: string, firstMs: number, status: string) =>
  `INSERT INTO judge_trajectories (trace_id, service, first_ms, end_ms, last_seen_ms, has_failure, position, status, updated_ms)
   VALUES ('${traceId}', 'shop', ${firstMs}, ${firstMs + 10}, ${firstMs + 10}, 0, 0.5, '${status}', ${firstMs + 10})`;
const stepRow = (traceId: string, spanId: string, startMs: number) =>
  `INSERT INTO judge_steps (trace_id, span_id, start_ms, end_ms, kind, payload)
   VALUES ('${traceId}', '${spanId}', ${startMs}, ${startMs + 1}, 'model', '${step(spanId, startMs)}')`;
// B was stored first (its trace id sorts after A's): ids follow the first-seen time on SQLite.
const ROWS = [
  header(A, 2000, 'pending'),
  header(B, 1000, 'open'),
  stepRow(A, '01', 2000),
  stepRow(A, '02', 2005),
  stepRow(B, '01', 1000),
  stepRow('c'.repeat(32), '01', 500),
];

async function check(store: Store): Promise<void> {
  const judge = new JudgeStore(store.sql);
  const ids = await store.sql.all<{ trace_id: string; id: unknown }>(
    'SELECT trace_id, id FROM judge_trajectories ORDER BY id',
  );
  expect(new Set(ids.map((r) => Number(r.id))).size).toBe(2);
  if (store.kind === 'sqlite') expect(ids.map((r) => r.trace_id)).toEqual([B, A]);
  expect((await judge.trajectories.trajectory(A))!.steps.map((s) => s.spanId)).toEqual(['01', '02']);
  expect((await judge.trajectories.trajectory(B))!.steps.map((s) => s.spanId)).toEqual(['01']);
  expect(Number((await store.sql.all<{ n: unknown }>('SELECT COUNT(*) AS n FROM judge_steps'))[0]!.n)).toBe(3);
  // Ingest after it: B (still open) takes a step, a new trace a new id past the others.
  const C = 'd'.repeat(32);
  const write = (traceId: string, spanId: string) => ({
    traceId,
    service: 'shop',
    firstMs: 3000,
    endMs: 3001,
    seenMs: 3000,
    hasFailure: false,
    position: 0.5,
    steps: [{ spanId, startMs: 3000, endMs: 3001, kind: 'model' as const, payload: step(spanId, 3000) }],
  });
  await store.write({
    ...emptyBatch(),
    extensions: [judge.trajectories.ingestExtension([write(B, '02'), write(C, '01')])],
  });
  expect((await judge.trajectories.trajectory(B))!.steps.map((s) => s.spanId)).toEqual(['01', '02']);
  expect((await judge.trajectories.trajectory(C))!.steps.map((s) => s.spanId)).toEqual(['01']);
  const [newest] = await store.sql.all<{ trace_id: string }>(
    'SELECT trace_id FROM judge_trajectories ORDER BY id DESC LIMIT 1',
  );
  expect(newest!.trace_id).toBe(C);
}

describe('migration 19 (judge steps keyed by a sequential trajectory id)', () => {
  it('SQLite: rebuilds both tables, every step of a stored trajectory kept', () => migrateSqlite(BEFORE, ROWS, check));

  it.skipIf(pgServer().skip)('PostgreSQL: ids added, steps moved under them', () =>
    migratePostgres(BEFORE, ROWS, check),
  );
});
