/**
 * Both store engines for table-driven store tests: SQLite in memory, PostgreSQL in a fresh database
 * of the test server (skipped without one); `dispose` closes the store and drops that database.
 */
import { afterEach } from 'vitest';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { dropDatabase, freshDatabase, pgServer } from './pg.js';

export interface StoreEngine {
  name: string;
  skip: boolean;
  open(): Promise<{ store: Store; dispose(): Promise<void> }>;
}

export const storeEngines: StoreEngine[] = [
  {
    name: 'SQLite',
    skip: false,
    open: async () => {
      const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
      return { store, dispose: () => store.close() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: pgServer().skip,
    open: async () => {
      const url = await freshDatabase();
      const store = await PostgresStore.open(url);
      return {
        store,
        dispose: async () => {
          await store.close();
          await dropDatabase(url);
        },
      };
    },
  },
];

/** A fresh store of `engine` per call, each disposed after its test (call inside a describe). */
export function freshStores(engine: StoreEngine): () => Promise<Store> {
  const open: { dispose(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.dispose();
  });
  return async () => {
    const o = await engine.open();
    open.push(o);
    return o.store;
  };
}
