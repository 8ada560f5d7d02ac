/**
 * Settling a COMMIT whose answer was lost (src/store/pg-in-doubt.ts). The id of the transaction
 * says whether it is still running; only its commit mark says whether it committed: after a crash,
 * the id of a transaction whose WAL never reached disk is handed to the next one, and that one's
 * commit must not be read as ours (a batch acknowledged and never counted — seen once in the
 * fault probe, test/reliability/postgres-faults.test.ts, on Node 24).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xactCommitted } from '../../src/store/pg-in-doubt.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { type Cluster, startCluster } from '../global-setup.js';
import { pgServer } from '../helpers/pg.js';
import { callsBatch, interceptNextConnection, type StoreBeside, storeBeside } from '../helpers/pg-store.js';

const countedOf = async (store: PostgresStore, tool: string) =>
  (await store.callCounts({ sinceMs: 0 })).filter((r) => r.tool === tool).reduce((n, r) => n + r.count, 0);

/** A transaction on `c` that writes a commit mark under `token` (its own, by default); returns its id. */
async function transaction(c: pg.Client, token = randomUUID()): Promise<string> {
  await c.query('BEGIN');
  const xid = (await c.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid')).rows[0]!.xid;
  await c.query('INSERT INTO commit_marks (token) VALUES ($1)', [token]);
  return xid;
}

describe.skipIf(pgServer().skip)('a COMMIT in doubt is settled by its mark, not by its id alone', () => {
  let db: StoreBeside;
  let store: PostgresStore;
  let other: pg.Client;
  beforeAll(async () => {
    db = await storeBeside(); // migrated: commit_marks is there
    ({ store, client: other } = db);
  });
  afterAll(async () => {
    await db?.close();
  });

  // One row per case: how the transaction ended, whether it wrote the mark we ask about.
  const cases = [
    { ends: 'COMMIT', marked: true, committed: true },
    // The id's status is 'committed', but the transaction behind it is not ours: an id reused after a crash.
    { ends: 'COMMIT', marked: false, committed: false },
    { ends: 'ROLLBACK', marked: true, committed: false },
  ] as const;
  it.each(cases)('ended by $ends, our mark written: $marked → committed $committed', async (c) => {
    const token = randomUUID();
    const xid = await transaction(other, c.marked ? token : randomUUID());
    await other.query(c.ends);
    expect(await xactCommitted(store.pool, { xid, token }, 2_000)).toBe(c.committed);
  });

  it('an id the server has not handed out yet (its WAL was lost in a crash): not committed, without waiting', async () => {
    const next = (await other.query<{ x: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS x'))
      .rows[0]!.x;
    const t0 = Date.now();
    expect(await xactCommitted(store.pool, { xid: String(BigInt(next) + 1000n), token: randomUUID() }, 5_000)).toBe(
      false,
    );
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it('still in progress: waits for its end (committed), or gives up at the wait (not committed)', async () => {
    const token = randomUUID();
    const xid = await transaction(other, token);
    expect(await xactCommitted(store.pool, { xid, token }, 500)).toBe(false);
    const settling = xactCommitted(store.pool, { xid, token }, 5_000);
    await new Promise((r) => setTimeout(r, 300));
    await other.query('COMMIT');
    expect(await settling).toBe(true);
  });

  it('the hourly retention prunes marks older than an hour, and only those', async () => {
    const old = randomUUID();
    const recent = randomUUID();
    await other.query(`INSERT INTO commit_marks (token, at) VALUES ($1, now() - interval '2 hours'), ($2, now())`, [
      old,
      recent,
    ]);
    await store.prune(0);
    const left = await other.query<{ token: string }>('SELECT token FROM commit_marks WHERE token = ANY($1::uuid[])', [
      [old, recent],
    ]);
    expect(left.rows.map((r) => r.token)).toEqual([recent]);
  });
});

describe.skipIf(pgServer().skip)('a server killed before our COMMIT, its id reused after recovery', () => {
  let cluster: Cluster;
  let store: PostgresStore;
  beforeAll(async () => {
    // Durable, with the WAL writer held back and the background writer off (writing a dirty page
    // flushes the WAL before it): our transaction's WAL stays in memory until the kill.
    cluster = await startCluster({ durable: true, settings: ['wal_writer_delay=10000', 'bgwriter_lru_maxpages=0'] });
    store = await PostgresStore.open(cluster.url);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    cluster?.stop();
  });

  it('the batch is refused (its client resends it), not acknowledged uncounted', async () => {
    const admin = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
      const c = new pg.Client({ connectionString: cluster.url });
      await c.connect();
      try {
        return await fn(c);
      } finally {
        await c.end();
      }
    };
    // Each attempt: a fresh checkpoint, our transaction killed before its COMMIT, the batch refused and
    // not counted, its resend counted once. Our id is reused only if its WAL was still in memory at
    // the kill; the WAL writer still wakes every 10 s (its longest delay), and on a loaded machine an
    // attempt can straddle a wake-up. So an attempt without reuse is tried again, up to three times.
    for (let attempt = 1; ; attempt++) {
      const name = `lost-in-crash-${attempt}`;
      await admin((c) => c.query('CHECKPOINT'));
      // Nothing else runs here: the group transaction takes the next id.
      const ours = await admin(
        async (c) =>
          (await c.query<{ x: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS x')).rows[0]!.x,
      );
      let reused = '';
      interceptNextConnection(store, async (sql, _n, run) => {
        if (sql !== 'COMMIT') return run();
        // Killed before COMMIT reached it; after recovery the next transaction commits under our id.
        cluster.halt('immediate');
        cluster.resume();
        reused = await admin(async (c) => {
          const xid = await transaction(c);
          await c.query('COMMIT');
          return xid;
        });
        return run();
      });

      await expect(store.write(callsBatch(5, name))).rejects.toThrow();
      expect(await countedOf(store, name)).toBe(0);
      // The client's resend is then counted, once.
      await store.write(callsBatch(5, name));
      expect(await countedOf(store, name)).toBe(5);
      if (reused === ours) break; // the case this test is for did happen
      expect(attempt, `our id ${ours} was not reused after the crash (the next was ${reused})`).toBeLessThan(3);
    }
  }, 180_000);
});
