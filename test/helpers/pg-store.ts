/**
 * A PostgresStore on a fresh database (test/helpers/pg.ts) with a plain client beside it, to look at
 * the tables the store wrote or to end its connections; close() ends both and drops the database.
 */
import pg from 'pg';
import { type PostgresOptions, PostgresStore } from '../../src/store/postgres.js';
import { emptyBatch, type WriteBatch } from '../../src/store/store.js';
import { dropDatabase, freshDatabase } from './pg.js';

export interface StoreBeside {
  url: string;
  store: PostgresStore;
  client: pg.Client;
  close(): Promise<void>;
}

export async function storeBeside(opts: PostgresOptions = {}): Promise<StoreBeside> {
  const url = await freshDatabase();
  let store: PostgresStore | undefined;
  const client = new pg.Client({ connectionString: url });
  try {
    store = await PostgresStore.open(url, opts); // migrates
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    await store?.close();
    await dropDatabase(url);
    throw err;
  }
  const opened = store;
  return {
    url,
    store: opened,
    client,
    async close() {
      await client.end();
      await opened.close();
      await dropDatabase(url);
    },
  };
}

/** A write batch of `count` valid calls of `tool` in one minute's row: what the store tests count back. */
export function callsBatch(count: number, tool = 't'): WriteBatch {
  const b = emptyBatch();
  b.callAggregates.push({
    minute: 60_000,
    source: 'otlp',
    service: 's',
    model: 'm',
    tool,
    outcome: 'valid',
    reason: '',
    count,
  });
  return b;
}

/** A statement call on a pool connection (pg.PoolClient.query, untyped). */
export type Query = (...args: unknown[]) => Promise<unknown>;

/**
 * The next connection `store` checks out runs each statement through `around` (its text, its
 * number on the connection, the real call, the connection's own query), so a test can end the
 * connection, or the server, at an exact point of a batch's transaction.
 */
export function interceptNextConnection(
  store: PostgresStore,
  around: (sql: string, n: number, run: () => Promise<unknown>, q: Query) => unknown,
): void {
  const pool = store.pool as pg.Pool & { connect(): Promise<pg.PoolClient> };
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  pool.connect = (async () => {
    pool.connect = connect as typeof pool.connect;
    const client = await connect();
    const query = client.query.bind(client) as Query;
    let statements = 0;
    client.query = ((...args: unknown[]) =>
      around(String(args[0]), statements++, () => query(...args), query)) as typeof client.query;
    return client;
  }) as typeof pool.connect;
}
