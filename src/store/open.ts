import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './store.js';

/** Opens the store the config names and runs its migrations. */
export async function openStore(config: Config, log: Logger): Promise<Store> {
  const db = config.database;
  if (db.kind === 'sqlite') return new SqliteStore({ path: db.path, synchronous: config.store.sqliteSynchronous });
  // Loaded only when asked for, so the embedded default never pulls in pg.
  const { PostgresStore } = await import('./postgres.js');
  return PostgresStore.open(db.url, {
    onClientError: (err) => log.warn({ err }, 'postgres: a connection failed; what ran on it is refused (503) and the pool replaces it'),
  });
}
