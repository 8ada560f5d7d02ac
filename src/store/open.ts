import { existsSync, readdirSync, rmSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Store } from './store.js';

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** What opening a store reads from the config, and nothing else: the database, SQLite's durability, lock wait and checkpoints. */
export interface StoreConfig {
  database: DatabaseConfig;
  store: {
    sqliteSynchronous: 'NORMAL' | 'FULL';
    sqliteBusyTimeoutMs: number;
    sqliteCheckpoint: 'background' | 'inline';
  };
}

/**
 * Opens the store the config names and runs its migrations. Each engine is loaded only when asked
 * for: the embedded default never pulls in pg, and a PostgreSQL deployment never loads the
 * better-sqlite3 addon.
 */
export async function openStore(config: StoreConfig, log: Logger): Promise<Store> {
  const db = config.database;
  if (db.kind === 'sqlite') {
    const { SqliteStore } = await import('./sqlite.js');
    return new SqliteStore({
      path: db.path,
      synchronous: config.store.sqliteSynchronous,
      busyTimeoutMs: config.store.sqliteBusyTimeoutMs,
      checkpoint: config.store.sqliteCheckpoint,
      onCheckpointProblem: (message) =>
        log.warn({ problem: message }, 'sqlite: WAL checkpoints are back on the committing connection'),
    });
  }
  const { PostgresStore } = await import('./postgres.js');
  return PostgresStore.open(db.url, {
    onClientError: (err) =>
      log.warn({ err }, 'postgres: a connection failed; what ran on it is refused (503) and the pool replaces it'),
  });
}

/**
 * Call before openStore: returns what removes the SQLite file (and its WAL, shared memory and the
 * folders) if this start created them, for a start refused after the store was opened.
 */
export function noteSqliteCreation(config: Pick<StoreConfig, 'database'>): () => void {
  const db = config.database;
  if (db.kind !== 'sqlite' || db.path === ':memory:' || existsSync(db.path)) return () => {};
  let firstNew = path.dirname(db.path);
  while (!existsSync(path.dirname(firstNew)) && path.dirname(firstNew) !== firstNew) firstNew = path.dirname(firstNew);
  const dirExisted = existsSync(firstNew);
  return () => {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(db.path + suffix, { force: true });
    if (dirExisted) return;
    // Only the folders this start made, and only while empty.
    for (let dir = path.dirname(db.path); ; dir = path.dirname(dir)) {
      if (!existsSync(dir) || readdirSync(dir).length > 0) break;
      rmdirSync(dir);
      if (dir === firstNew) break;
    }
  };
}
