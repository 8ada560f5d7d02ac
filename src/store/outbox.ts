/**
 * The one persisted outbox, for everything toolwatch sends later instead of waiting for (alert
 * notifications, Langfuse scores). A message is written in the transaction that decided it, and
 * delivered by a pass per destination (one webhook, the Langfuse API):
 * - an ordered destination is FIFO: only its oldest pending message is tried, so a later message
 *   never overtakes an earlier one (a resolved never overtakes its firing); an unordered one tries
 *   every due message, so one refused message holds no other (Langfuse upserts scores by id);
 * - every attempt is recorded before it is made, with the time it will be retried should the
 *   process die mid-send: a restart sends it again — at most one duplicate per interrupted attempt;
 * - at most one message per `minIntervalMs` per destination, counted from the end of a send;
 * - a transient failure is retried after the receiver's Retry-After, or the backoff; a Retry-After
 *   or a 429 holds the whole destination until then (capped at `maxRetryAfterMs`);
 * - a permanent failure, or a message older than `giveUpAfterMs` or tried `maxAttempts` times, is
 *   given up: marked failed (kept for the API until pruned) or deleted (`keepDone: false`).
 *
 * It is a table over the store's SQL port, so it lives in store/; the stateless pieces of the
 * policy (backoff, Retry-After, HTTP status classes) stay in delivery/, below the store.
 */
import { valuesList, type BatchTx, type Row, type Sql } from './sql.js';
import { num, numOrNull, strOrNull } from './rows.js';
import { retryDelay, type BackoffPolicy } from '../delivery/backoff.js';

export type OutboxStatus = 'pending' | 'sent' | 'failed';

export interface OutboxMessage {
  id: number;
  destination: string;
  /** The dedupe key it was queued with (null: none). */
  key: string | null;
  createdMs: number;
  payload: string;
  status: OutboxStatus;
  /** Attempts made (recorded before each is made). */
  attempts: number;
  nextAttemptMs: number;
  lastAttemptMs: number | null;
  doneMs: number | null;
  lastError: string | null;
}

export interface NewMessage {
  payload: string;
  /** With a key, a message is not queued again while one with the same key is pending. */
  key?: string;
}

export interface DeliveryPolicy {
  /** FIFO (only the oldest pending message is tried) or every due message independently. */
  ordered: boolean;
  backoff: BackoffPolicy;
  /** Between two attempts at the destination. */
  minIntervalMs: number;
  /** A longer Retry-After is cut to this (a broken header must not park a destination for days). */
  maxRetryAfterMs: number;
  /** A message still undelivered this long after it was written is given up. */
  giveUpAfterMs?: number;
  /** A message that failed this many attempts is given up. */
  maxAttempts?: number;
  /** Keep sent and failed messages (for the API) until pruned; else delete them when done. Per message when a function. */
  keepDone: boolean | ((m: OutboxMessage) => boolean);
  /** Messages tried in one pass at most. */
  perPass: number;
}

export type SendOutcome =
  | { kind: 'ok' }
  | { kind: 'retry'; error: string; retryAfterMs?: number; rateLimited?: boolean }
  | { kind: 'permanent'; error: string };

/** sent; retried later; failed (permanent); expired (given up: too old or too many attempts). */
export type DeliveryStatus = 'sent' | 'retried' | 'failed' | 'expired';

export interface DeliverOptions {
  policy: DeliveryPolicy;
  now(): number;
  send(m: OutboxMessage): Promise<SendOutcome>;
  report?(m: OutboxMessage, status: DeliveryStatus, error?: string): void;
  /** Retry jitter (tests pass a fixed one). */
  random?: () => number;
}

const MAX_ROWS_PER_STATEMENT = 200;

/** A Retry-After beyond an hour is treated as an hour: a broken header must not park a destination for days. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

export function fromOutboxRow(r: Row): OutboxMessage {
  return {
    id: num(r.id),
    destination: String(r.destination),
    key: strOrNull(r.dedupe_key),
    createdMs: num(r.created_ms),
    payload: String(r.payload),
    status: String(r.status) as OutboxStatus,
    attempts: num(r.attempts),
    nextAttemptMs: num(r.next_attempt_ms),
    lastAttemptMs: numOrNull(r.last_attempt_ms),
    doneMs: numOrNull(r.done_ms),
    lastError: strOrNull(r.last_error),
  };
}

/** The INSERTs that queue messages (for a transaction or a batch extension): due at once. */
export function enqueueStatements(
  destination: string,
  messages: readonly NewMessage[],
  nowMs: number,
): [string, unknown[]][] {
  const out: [string, unknown[]][] = [];
  for (let i = 0; i < messages.length; i += MAX_ROWS_PER_STATEMENT) {
    const chunk = messages.slice(i, i + MAX_ROWS_PER_STATEMENT);
    out.push([
      `INSERT INTO outbox (destination, dedupe_key, created_ms, payload, status, attempts, next_attempt_ms)
       VALUES ${valuesList(chunk.length, 7)} ON CONFLICT DO NOTHING`,
      chunk.flatMap((m) => [destination, m.key ?? null, nowMs, m.payload, 'pending', 0, nowMs]),
    ]);
  }
  return out;
}

export class Outbox {
  constructor(private readonly sql: Sql) {}

  /** Queues messages on `sql` (pass a transaction's port to queue them with its other writes). */
  async enqueue(
    destination: string,
    messages: readonly NewMessage[],
    nowMs: number,
    sql: Sql = this.sql,
  ): Promise<void> {
    for (const [text, params] of enqueueStatements(destination, messages, nowMs)) await sql.run(text, params);
  }

  /** Queues messages inside an ingest batch's transaction. */
  enqueueIn(tx: BatchTx, destination: string, messages: readonly NewMessage[], nowMs: number): void {
    for (const [text, params] of enqueueStatements(destination, messages, nowMs)) tx.run(text, params);
  }

  /** The oldest pending message of a destination. */
  async head(destination: string): Promise<OutboxMessage | undefined> {
    const [r] = await this.sql.all(
      `SELECT * FROM outbox WHERE destination = ? AND status = 'pending' ORDER BY id LIMIT 1`,
      [destination],
    );
    return r ? fromOutboxRow(r) : undefined;
  }

  /** When the destination may be tried next (rate limit, Retry-After); 0 when never used. */
  async readyAt(destination: string): Promise<number> {
    const [r] = await this.sql.all('SELECT ready_at_ms FROM outbox_destinations WHERE destination = ?', [destination]);
    return r ? num(r.ready_at_ms) : 0;
  }

  /**
   * Records an attempt before it is made: attempts + 1, the time it is retried should the process
   * die mid-send, and the destination's next slot.
   */
  async markAttempt(
    id: number,
    destination: string,
    nowMs: number,
    retryAtMs: number,
    readyAtMs: number,
  ): Promise<void> {
    await this.sql.tx(async (tx) => {
      await tx.run('UPDATE outbox SET attempts = attempts + 1, last_attempt_ms = ?, next_attempt_ms = ? WHERE id = ?', [
        nowMs,
        retryAtMs,
        id,
      ]);
      if (readyAtMs > nowMs) {
        await tx.run(
          `INSERT INTO outbox_destinations (destination, ready_at_ms) VALUES (?, ?)
           ON CONFLICT (destination) DO UPDATE SET ready_at_ms = excluded.ready_at_ms`,
          [destination, readyAtMs],
        );
      }
    });
  }

  /** One delivery pass over a destination. Never throws on a send failure: it is recorded. */
  async deliver(destination: string, o: DeliverOptions): Promise<Record<DeliveryStatus, number>> {
    const { policy } = o;
    const counts: Record<DeliveryStatus, number> = { sent: 0, retried: 0, failed: 0, expired: 0 };
    const done = (m: OutboxMessage, status: DeliveryStatus, error?: string) => {
      counts[status]++;
      o.report?.(m, status, error);
    };
    let readyAt = await this.readyAt(destination);
    const due = policy.ordered ? undefined : await this.due(destination, o.now(), policy.perPass);
    for (let n = 0; n < policy.perPass; n++) {
      const t0 = o.now();
      if (t0 < readyAt) break;
      const m = policy.ordered ? await this.head(destination) : due![n];
      if (!m || t0 < m.nextAttemptMs) break;
      if (policy.giveUpAfterMs !== undefined && t0 - m.createdMs > policy.giveUpAfterMs) {
        const error = `gave up after ${m.attempts} attempts: ${m.lastError ?? ''}`.trim();
        await this.finish(m, 'failed', error, t0, policy);
        done(m, 'expired', m.lastError ?? 'expired');
        continue;
      }
      readyAt = t0 + policy.minIntervalMs;
      const attempts = m.attempts + 1;
      // Written before the send: should we die now, a restart retries after the backoff.
      await this.markAttempt(
        m.id,
        destination,
        t0,
        t0 + retryDelay(policy.backoff, attempts, undefined, o.random),
        readyAt,
      );
      let outcome: SendOutcome;
      try {
        outcome = await o.send(m);
      } catch (err) {
        outcome = { kind: 'retry', error: (err as Error).message };
      }
      const t1 = o.now();
      const tried = { ...m, attempts };
      if (outcome.kind === 'ok') {
        await this.finish(tried, 'sent', null, t1, policy);
        done(tried, 'sent');
      } else if (outcome.kind === 'permanent') {
        await this.finish(tried, 'failed', outcome.error, t1, policy);
        done(tried, 'failed', outcome.error);
      } else if (policy.maxAttempts !== undefined && attempts >= policy.maxAttempts) {
        await this.finish(tried, 'failed', outcome.error, t1, policy);
        done(tried, 'expired', outcome.error);
      } else {
        const after =
          outcome.retryAfterMs === undefined ? undefined : Math.min(outcome.retryAfterMs, policy.maxRetryAfterMs);
        const retryAt = t1 + Math.max(retryDelay(policy.backoff, attempts, after, o.random), policy.minIntervalMs);
        const hold = outcome.rateLimited === true || after !== undefined;
        await this.retryLater(tried, outcome.error, retryAt, hold);
        if (hold) readyAt = Math.max(readyAt, retryAt);
        done(tried, 'retried', outcome.error);
      }
      // The next slot counts from the end of this send, not only from its start: the receiver then
      // sees at most one message per minIntervalMs whatever each one's way there took (counted from the
      // starts alone, a slow send followed by a quick one reached a webhook 998 ms apart). Written after
      // the outcome: a store failure here cannot make a sent message be sent again.
      if (policy.minIntervalMs > 0 && t1 + policy.minIntervalMs > readyAt) {
        readyAt = t1 + policy.minIntervalMs;
        await this.holdUntil(this.sql, destination, readyAt);
      }
    }
    return counts;
  }

  private async due(destination: string, nowMs: number, limit: number): Promise<OutboxMessage[]> {
    const rows = await this.sql.all(
      `SELECT * FROM outbox WHERE destination = ? AND status = 'pending' AND next_attempt_ms <= ? ORDER BY next_attempt_ms, id LIMIT ?`,
      [destination, nowMs, limit],
    );
    return rows.map(fromOutboxRow);
  }

  private async retryLater(
    m: OutboxMessage,
    error: string,
    retryAtMs: number,
    holdDestination: boolean,
  ): Promise<void> {
    await this.sql.tx(async (tx) => {
      await tx.run('UPDATE outbox SET next_attempt_ms = ?, last_error = ? WHERE id = ?', [retryAtMs, error, m.id]);
      if (holdDestination) await this.holdUntil(tx, m.destination, retryAtMs);
    });
  }

  /** The destination's next slot no earlier than `readyAtMs` (a later one stays). */
  private async holdUntil(sql: Pick<Sql, 'run'>, destination: string, readyAtMs: number): Promise<void> {
    await sql.run(
      `INSERT INTO outbox_destinations (destination, ready_at_ms) VALUES (?, ?)
       ON CONFLICT (destination) DO UPDATE SET ready_at_ms = CASE WHEN excluded.ready_at_ms > outbox_destinations.ready_at_ms
         THEN excluded.ready_at_ms ELSE outbox_destinations.ready_at_ms END`,
      [destination, readyAtMs],
    );
  }

  private async finish(
    m: OutboxMessage,
    status: 'sent' | 'failed',
    error: string | null,
    nowMs: number,
    policy: DeliveryPolicy,
  ): Promise<void> {
    const keep = typeof policy.keepDone === 'function' ? policy.keepDone(m) : policy.keepDone;
    if (!keep) await this.sql.run('DELETE FROM outbox WHERE id = ?', [m.id]);
    else
      await this.sql.run('UPDATE outbox SET status = ?, done_ms = ?, last_error = ? WHERE id = ?', [
        status,
        nowMs,
        error,
        m.id,
      ]);
  }

  /** Pending, sent and failed messages of the destinations whose name starts with `prefix`, and the latest failed ones. */
  async summary(
    prefix: string,
    failedLimit: number,
  ): Promise<{ pending: number; sent: number; failed: number; recentFailures: OutboxMessage[] }> {
    const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const counts = await this.sql.all(
      `SELECT status, COUNT(*) AS n FROM outbox WHERE destination LIKE ? ESCAPE '\\' GROUP BY status`,
      [like],
    );
    const by = Object.fromEntries(counts.map((c) => [String(c.status), num(c.n)]));
    const failed = await this.sql.all(
      `SELECT * FROM outbox WHERE destination LIKE ? ESCAPE '\\' AND status = 'failed' ORDER BY id DESC LIMIT ?`,
      [like, failedLimit],
    );
    return {
      pending: by.pending ?? 0,
      sent: by.sent ?? 0,
      failed: by.failed ?? 0,
      recentFailures: failed.map(fromOutboxRow),
    };
  }

  async pending(destination: string): Promise<number> {
    const [r] = await this.sql.all(`SELECT COUNT(*) AS n FROM outbox WHERE destination = ? AND status = 'pending'`, [
      destination,
    ]);
    return num(r?.n);
  }

  /** Deletes delivered and failed messages of these destinations done before the cutoff. */
  async prune(prefix: string, beforeMs: number): Promise<number> {
    const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.sql.run(
      `DELETE FROM outbox WHERE destination LIKE ? ESCAPE '\\' AND status <> 'pending' AND done_ms < ?`,
      [like, beforeMs],
    );
  }
}
