/**
 * Migration 9 on both engines: execution rows written before it keep their counts (status `ok` and
 * `error` — "failed, nobody said how" — stay what they were), gain the call's model ('') and outcome
 * (`unknown`), and the new key takes the new rows beside them; the trajectory tables exist.
 */
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/store/migrations/index.js';
import { emptyBatch, type Store } from '../../src/store/store.js';
import { migratePostgres, migrateSqlite } from '../helpers/migrated-store.js';
import { pgServer } from '../helpers/pg.js';

const BEFORE = migrations.filter((m) => m.version < 9);
const ROWS = [
  `INSERT INTO execution_minutes (minute, source, service, tool, status, count) VALUES (60000, 'otlp', 'shop', 'pay', 'ok', 7)`,
  `INSERT INTO execution_minutes (minute, source, service, tool, status, count) VALUES (60000, 'otlp', 'shop', 'pay', 'error', 2)`,
];

async function check(store: Store): Promise<void> {
  await store.write({
    ...emptyBatch(),
    executionAggregates: [
      {
        minute: 60000,
        source: 'otlp',
        service: 'shop',
        model: 'gpt-4o',
        tool: 'pay',
        status: 'client_error',
        callOutcome: 'valid',
        count: 3,
      },
      {
        minute: 60000,
        source: 'otlp',
        service: 'shop',
        model: '',
        tool: 'pay',
        status: 'ok',
        callOutcome: 'unknown',
        count: 1,
      },
    ],
  });
  expect(await store.executionCounts({ sinceMs: 0 })).toEqual([
    { service: 'shop', model: '', tool: 'pay', status: 'error', callOutcome: 'unknown', count: 2 },
    { service: 'shop', model: '', tool: 'pay', status: 'ok', callOutcome: 'unknown', count: 8 },
    { service: 'shop', model: 'gpt-4o', tool: 'pay', status: 'client_error', callOutcome: 'valid', count: 3 },
  ]);
  expect(await store.sql.all('SELECT COUNT(*) AS n FROM trajectory_minutes')).toEqual([
    { n: store.kind === 'postgres' ? '0' : 0 },
  ]);
  expect(await store.sql.all('SELECT COUNT(*) AS n FROM trajectory_buckets')).toEqual([
    { n: store.kind === 'postgres' ? '0' : 0 },
  ]);
}

describe('migration 9 (execution classes, call outcome, trajectories)', () => {
  it('SQLite: rebuilds execution_minutes, keeping every count', () => migrateSqlite(BEFORE, ROWS, check));

  it.skipIf(pgServer().skip)('PostgreSQL: new columns and key, keeping every count', () =>
    migratePostgres(BEFORE, ROWS, check),
  );
});
