/**
 * A COMMIT whose answer is lost with its connection — the server stopped or killed, the network cut
 * between the commit and its acknowledgement — may have committed. Refusing the batch then makes
 * the client resend what is already counted, and it is counted twice. So a batch group's
 * transaction learns its id at BEGIN and writes a commit mark under a random token (in the same
 * round trip, with its statements), and such a COMMIT is settled by asking the server, once it
 * answers again, first whether that transaction is still in progress (`pg_xact_status`, PostgreSQL
 * 13+), then whether its mark is there. Only if it cannot tell within the wait is the batch refused
 * as before.
 *
 * The id alone does not settle it: after a crash, a transaction whose WAL never reached disk leaves
 * its id unused, and recovery hands that id to the next transaction (seen with `pg_ctl stop -m
 * immediate`: our transaction and the first one after restart both had id 725), whose commit
 * `pg_xact_status` then reports as ours — a batch acknowledged and never counted.
 */
import { randomUUID } from 'node:crypto';
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

/** BEGIN, the transaction's id, its commit mark (migration 016), ahead of the caller's statements. */
const begun = (token: string): Statement[] => [
  ['BEGIN', []],
  ['SELECT pg_current_xact_id()::text AS xid', []],
  ['INSERT INTO commit_marks (token) VALUES (?)', [token]],
];

/** What settles a COMMIT in doubt: the transaction's id and the token of its commit mark. */
export interface InDoubt {
  xid: string;
  token: string;
}

/**
 * BEGIN … fn … COMMIT on one checked-out connection, like withTransaction; a COMMIT whose outcome
 * is unknown is settled by `committed({xid, token})`: true counts as committed, false rethrows its error.
 * COMMIT goes alone, once every statement has answered, so the id is known before the outcome can
 * be in doubt.
 */
export async function withResolvedCommit(
  client: pg.PoolClient,
  fn: (begin: Begin, c: pg.PoolClient) => Promise<void>,
  committed: (doubt: InDoubt) => Promise<boolean>,
): Promise<void> {
  let xid: string | undefined;
  const token = randomUUID();
  const begin: Begin = async (statements) => {
    if (xid !== undefined) throw new Error('the transaction has begun already');
    const head = begun(token);
    const results = await runStatements(client, [...head, ...statements]);
    xid = String(results[1]!.rows[0].xid);
    return results.slice(head.length);
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
    if (commitOutcomeUnknown(err) && (await committed({ xid, token }))) return;
    throw err;
  }
  client.release();
}

/**
 * Asks the server what became of the transaction, retrying while it is away (restarting, in crash
 * recovery) or still reports the id in progress, for up to `waitMs`. True only when the
 * transaction's mark is there. The mark is read in a statement after the one that found the id no
 * longer in progress, so its snapshot sees the outcome; an id the server does not know yet (its
 * WAL was lost: "transaction ID … is in the future") goes to the mark as well.
 */
export async function xactCommitted(pool: pg.Pool, doubt: InDoubt, waitMs = IN_DOUBT_WAIT_MS): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      let inProgress = false;
      try {
        const res = await pool.query<{ status: string | null }>('SELECT pg_xact_status($1::xid8) AS status', [
          doubt.xid,
        ]);
        // 'in progress' may be another transaction given the same id after a crash: it ends soon.
        inProgress = res.rows[0]?.status === 'in progress';
      } catch (err) {
        if (!(err instanceof pg.DatabaseError && err.code === INVALID_PARAMETER_VALUE)) throw err;
      }
      if (!inProgress) {
        const res = await pool.query<{ marked: boolean }>(
          'SELECT EXISTS (SELECT 1 FROM commit_marks WHERE token = $1) AS marked',
          [doubt.token],
        );
        return res.rows[0]?.marked === true;
      }
    } catch {
      // Not answering yet.
    }
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** SQLSTATE of pg_xact_status for an id past the server's next one. */
const INVALID_PARAMETER_VALUE = '22023';
