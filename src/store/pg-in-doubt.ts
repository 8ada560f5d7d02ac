/**
 * A COMMIT whose answer is lost with its connection — the server stopped or killed, the network cut
 * between the commit and its acknowledgement — may have committed. Refusing the batch then makes
 * the client resend what is already counted, and it is counted twice. So a batch group's
 * transaction learns its id at BEGIN (in the same round trip, with its statements), and such a COMMIT is settled by
 * asking the server, once it answers again, whether that transaction committed (`pg_xact_status`,
 * PostgreSQL 13+). Only if it cannot tell within the wait is the batch refused as before.
 */
import pg from 'pg';
import { runStatements, type Statement } from './pg-statements.js';

/** How long a lost COMMIT waits for the server to say what became of it (a restart, crash recovery). */
export const IN_DOUBT_WAIT_MS = 15_000;
const POLL_MS = 200;

/**
 * Whether a COMMIT's error leaves its outcome unknown: the connection ended (no answer at all) or
 * the server ended the session (SQLSTATE class 08 connection exception, 57 operator intervention).
 * Any other error is the server's definite answer: rolled back.
 */
export function commitOutcomeUnknown(err: unknown): boolean {
  if (!(err instanceof pg.DatabaseError)) return true;
  const cls = (err.code ?? '').slice(0, 2);
  return cls === '08' || cls === '57';
}

/**
 * Starts the transaction: BEGIN, its id and `statements` in one round trip (pg-statements.ts);
 * returns the statements' results. Called once, first, by the body of withResolvedCommit.
 */
export type Begin = (statements: readonly Statement[]) => Promise<pg.QueryResult[]>;

const BEGIN: readonly Statement[] = [
  ['BEGIN', []],
  ['SELECT pg_current_xact_id()::text AS xid', []],
];

/**
 * BEGIN … fn … COMMIT on one checked-out connection, like withTransaction; a COMMIT whose outcome
 * is unknown is settled by `committed(xid)`: true counts as committed, false rethrows its error.
 * COMMIT goes alone, once every statement has answered, so the id is known before the outcome can
 * be in doubt.
 */
export async function withResolvedCommit(
  client: pg.PoolClient,
  fn: (begin: Begin, c: pg.PoolClient) => Promise<void>,
  committed: (xid: string) => Promise<boolean>,
): Promise<void> {
  let xid: string | undefined;
  const begin: Begin = async (statements) => {
    if (xid !== undefined) throw new Error('the transaction has begun already');
    const results = await runStatements(client, [...BEGIN, ...statements]);
    xid = String(results[1]!.rows[0].xid);
    return results.slice(BEGIN.length);
  };
  try {
    await fn(begin, client);
    if (xid === undefined) throw new Error('the transaction never began');
  } catch (err) {
    let broken: Error | undefined;
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    client.release(broken);
    throw err;
  }
  try {
    await client.query('COMMIT');
  } catch (err) {
    // The connection is not reused whatever happened to it.
    client.release(err as Error);
    if (commitOutcomeUnknown(err) && (await committed(xid))) return;
    throw err;
  }
  client.release();
}

/**
 * Asks the server what became of transaction `xid`, retrying while it is away (restarting, in
 * crash recovery) or still reports the transaction in progress, for up to `waitMs`. True only when
 * it answers `committed`.
 */
export async function xactCommitted(pool: pg.Pool, xid: string, waitMs = IN_DOUBT_WAIT_MS): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const res = await pool.query<{ status: string | null }>('SELECT pg_xact_status($1::xid8) AS status', [xid]);
      const status = res.rows[0]?.status;
      if (status === 'committed') return true;
      // 'aborted', or null (too old to know: never the case for a transaction this recent).
      if (status !== 'in progress') return false;
    } catch {
      // Not answering yet.
    }
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
