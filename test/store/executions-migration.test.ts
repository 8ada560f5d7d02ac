/**
 * Migration 9 on both engines: execution rows written before it keep their counts (status `ok` and
 * `error` — "failed, nobody said how" — stay what they were), gain the call's model ('') and outcome
 * (`unknown`), and the new key takes the new rows beside them; the trajectory tables exist.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/store/migrations/index.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { emptyBatch, type Store } from '../../src/store/store.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';

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
  it('SQLite: rebuilds execution_minutes, keeping every count', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-mig8-'));
    const file = path.join(dir, 'db');
    try {
      const db = new Database(file);
      db.exec(
        'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
      );
      for (const m of BEFORE)
        db.exec(m.sqlite), db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(m.version, m.name);
      for (const r of ROWS) db.exec(r);
      db.close();
      const store = new SqliteStore({ path: file, synchronous: 'NORMAL' });
      try {
        await check(store);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(pgServer().skip)('PostgreSQL: new columns and key, keeping every count', async () => {
    const url = await freshDatabase();
    try {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(
        'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
      );
      for (const m of BEFORE)
        await client.query(m.postgres),
          await client.query('INSERT INTO schema_migrations VALUES ($1, $2, 0)', [m.version, m.name]);
      for (const r of ROWS) await client.query(r);
      await client.end();
      const store = await PostgresStore.open(url);
      try {
        await check(store);
      } finally {
        await store.close();
      }
    } finally {
      await dropDatabase(url);
    }
  });
});
