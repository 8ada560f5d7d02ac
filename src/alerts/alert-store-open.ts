import type { Store } from '../store/store.js';
import type { AlertStore } from './alert-store.js';
import { SqliteAlertStore } from './alert-store-sqlite.js';
import { PostgresAlertStore } from './alert-store-postgres.js';

/**
 * The alert store on the same database as the main store: SqliteStore's `db`, PostgresStore's
 * `pool`. Undefined for a store that exposes neither (a test double): alerting is then off.
 */
export function alertStoreFor(store: Store): AlertStore | undefined {
  const s = store as unknown as { db?: unknown; pool?: unknown };
  if (store.kind === 'sqlite' && s.db) return new SqliteAlertStore(s.db as ConstructorParameters<typeof SqliteAlertStore>[0]);
  if (store.kind === 'postgres' && s.pool) return new PostgresAlertStore(s.pool as ConstructorParameters<typeof PostgresAlertStore>[0]);
  return undefined;
}
