import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Store } from './store.js';

/**
 * Opens the store the config names and runs its migrations. Each engine is loaded only when asked
 * for: the embedded default never pulls in pg, and a PostgreSQL deployment never loads the
 * better-sqlite3 addon.
 */
export async function openStore(config: Config, log: Logger): Promise<Store> {
  const db = config.database;
  if (db.kind === 'sqlite') {
    const { SqliteStore } = await import('./sqlite.js');
    return new SqliteStore({ path: db.path, synchronous: config.store.sqliteSynchronous });
  }
  const { PostgresStore } = await import('./postgres.js');
  return PostgresStore.open(db.url, {
    onPoolError: (err) => log.warn({ err }, 'postgres: an idle pooled connection failed; the pool replaces it'),
  });
}
