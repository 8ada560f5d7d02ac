/**
 * A migration run over data of the schema before it, on each engine: a database is made at the
 * schema of `before` (the migrations up to the one under test, recorded as applied), `rows` are
 * written into it, then the current store opens it — running the remaining migrations — and
 * `check` reads what they made of the rows. Everything is removed afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Migration } from '../../src/store/migrations/index.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { dropDatabase, freshDatabase } from './pg.js';

async function checked(store: Store, check: (store: Store) => Promise<void>): Promise<void> {
  try {
    await check(store);
  } finally {
    await store.close();
  }
}

export async function migrateSqlite(
  before: readonly Migration[],
  rows: readonly string[],
  check: (store: Store) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-mig-'));
  const file = path.join(dir, 'db');
  try {
    const db = new Database(file);
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    for (const m of before)
      db.exec(m.sqlite), db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(m.version, m.name);
    for (const r of rows) db.exec(r);
    db.close();
    await checked(new SqliteStore({ path: file, synchronous: 'NORMAL' }), check);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function migratePostgres(
  before: readonly Migration[],
  rows: readonly string[],
  check: (store: Store) => Promise<void>,
): Promise<void> {
  const url = await freshDatabase();
  try {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
    );
    for (const m of before)
      await client.query(m.postgres),
        await client.query('INSERT INTO schema_migrations VALUES ($1, $2, 0)', [m.version, m.name]);
    for (const r of rows) await client.query(r);
    await client.end();
    await checked(await PostgresStore.open(url), check);
  } finally {
    await dropDatabase(url);
  }
}
