/**
 * A PostgreSQL connection that dies while toolwatch holds it (issue 8, High 2): between two statements
 * of a batch's transaction, or while a job holds its session lock. pg-pool drops its own error
 * listener from a checked-out client, so without one of ours the client's 'error' event is unhandled
 * and the process crashes. Here: the batch is refused (the client gets 503 and retries), the process
 * lives, and the next batch commits on a fresh connection.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresStore } from '../../src/store/postgres.js';
import { pgServer } from '../helpers/pg.js';
import { callsBatch, interceptNextConnection, type StoreBeside, storeBeside } from '../helpers/pg-store.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(pgServer().skip)('PostgreSQL connection lost while checked out', () => {
  let db: StoreBeside;
  let store: PostgresStore;
  let admin: pg.Client;
  const clientErrors: Error[] = [];

  beforeAll(async () => {
    db = await storeBeside({ onClientError: (err) => clientErrors.push(err) });
    ({ store, client: admin } = db);
  });
  afterAll(async () => {
    await db?.close();
  });

  const terminate = async (query: (sql: string) => Promise<pg.QueryResult<{ pid: number }>>) => {
    const pid = (await query('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    // No statement is running on it now: the connection's end arrives as an 'error' event.
    await sleep(300);
  };

  const counted = async () => (await store.callCounts({ sinceMs: 0 })).reduce((n, r) => n + r.count, 0);

  it('mid-transaction: the batch is refused, the process lives, the next batch commits', async () => {
    interceptNextConnection(store, async (_sql, n, run, q) => {
      if (n === 1) await terminate(q as never);
      return run();
    });
    await expect(store.write(callsBatch(5))).rejects.toThrow();
    await store.write(callsBatch(7));
    expect(await counted()).toBe(7);
    expect(clientErrors.length).toBeGreaterThan(0);
  });

  it('COMMIT reached the server, its answer was lost with the connection: the batch is written, once', async () => {
    const before = await counted();
    interceptNextConnection(store, async (sql, _n, run, q) => {
      if (sql !== 'COMMIT') return run();
      await run();
      await terminate(q as never);
      throw new Error('Connection terminated unexpectedly');
    });
    // Refused, the client would resend it and it would count twice; the server says it committed.
    await store.write(callsBatch(3));
    expect(await counted()).toBe(before + 3);
  });

  it('the connection lost before COMMIT reached the server: the batch is refused, nothing written', async () => {
    const before = await counted();
    interceptNextConnection(store, async (sql, _n, run, q) => {
      if (sql === 'COMMIT') await terminate(q as never);
      return run();
    });
    await expect(store.write(callsBatch(4))).rejects.toThrow();
    expect(await counted()).toBe(before);
  });

  it('while a job holds its session lock: the job fails, the lock is free again', async () => {
    const ran = await store
      .runExclusive('job', async () => {
        const c = await store.pool.connect();
        c.release();
        // The job's own connection is the one holding the lock: kill every toolwatch backend but ours —
        // of this database only (other test files use the same server at the same time).
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE application_name = 'toolwatch' AND datname = current_database() AND pid <> pg_backend_pid()`,
        );
        await sleep(300);
        return 'done';
      })
      .catch((err: Error) => err);
    // Whether the job's own result survived, the process did, and the lock can be taken again.
    expect(ran).toBeDefined();
    const again = await store.runExclusive('job', async () => 1);
    expect(again).toEqual({ ran: true, value: 1 });
    await store.write(callsBatch(1));
  });
});
