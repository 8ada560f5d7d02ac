/**
 * The one persisted outbox, for everything toolwatch sends later instead of waiting for (alert
 * notifications, Langfuse scores). A message is written in the transaction that decided it, and
 * delivered by a pass per destination (one webhook, the Langfuse API):
 * - an ordered destination is FIFO: only its oldest pending message is tried, so a later message
 *   never overtakes an earlier one (a resolved never overtakes its firing); an unordered one tries
 *   every due message, so one refused message holds no other (Langfuse upserts scores by id);
 * - every attempt is recorded before it is made, with the time it will be retried should the
 *   process die mid-send: a restart sends it again — at most one duplicate per interrupted attempt;
 * - at most one message per `minIntervalMs` per destination;
 * - a transient failure is retried after the receiver's Retry-After, or the backoff; a Retry-After
 *   or a 429 holds the whole destination until then (capped at `maxRetryAfterMs`);
 * - a permanent failure, or a message older than `giveUpAfterMs` or tried `maxAttempts` times, is
 *   given up: marked failed (kept for the API until pruned) or deleted (`keepDone: false`).
 *
 * It is a table over the store's SQL port, so it lives in store/; the stateless pieces of the
 * policy (backoff, Retry-After, HTTP status classes) stay in delivery/, below the store.
 */
import { valuesList } from './sql.js';
import { num, numOrNull, strOrNull } from './rows.js';
import { retryDelay } from '../delivery/backoff.js';
const MAX_ROWS_PER_STATEMENT = 200;
/** A Retry-After beyond an hour is treated as an hour: a broken header must not park a destination for days. */
export const MAX_RETRY_AFTER_MS = 3_600_000;
export function fromOutboxRow(r) {
    return {
        id: num(r.id),
        destination: String(r.destination),
        key: strOrNull(r.dedupe_key),
        createdMs: num(r.created_ms),
        payload: String(r.payload),
        status: String(r.status),
        attempts: num(r.attempts),
        nextAttemptMs: num(r.next_attempt_ms),
        lastAttemptMs: numOrNull(r.last_attempt_ms),
        doneMs: numOrNull(r.done_ms),
        lastError: strOrNull(r.last_error),
    };
}
/** The INSERTs that queue messages (for a transaction or a batch extension): due at once. */
export function enqueueStatements(destination, messages, nowMs) {
    const out = [];
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
    sql;
    constructor(sql) {
        this.sql = sql;
    }
    /** Queues messages on `sql` (pass a transaction's port to queue them with its other writes). */
    async enqueue(destination, messages, nowMs, sql = this.sql) {
        for (const [text, params] of enqueueStatements(destination, messages, nowMs))
            await sql.run(text, params);
    }
    /** Queues messages inside an ingest batch's transaction. */
    enqueueIn(tx, destination, messages, nowMs) {
        for (const [text, params] of enqueueStatements(destination, messages, nowMs))
            tx.run(text, params);
    }
    /** The oldest pending message of a destination. */
    async head(destination) {
        const [r] = await this.sql.all(`SELECT * FROM outbox WHERE destination = ? AND status = 'pending' ORDER BY id LIMIT 1`, [destination]);
        return r ? fromOutboxRow(r) : undefined;
    }
    /** When the destination may be tried next (rate limit, Retry-After); 0 when never used. */
    async readyAt(destination) {
        const [r] = await this.sql.all('SELECT ready_at_ms FROM outbox_destinations WHERE destination = ?', [destination]);
        return r ? num(r.ready_at_ms) : 0;
    }
    /**
     * Records an attempt before it is made: attempts + 1, the time it is retried should the process
     * die mid-send, and the destination's next slot.
     */
    async markAttempt(id, destination, nowMs, retryAtMs, readyAtMs) {
        await this.sql.tx(async (tx) => {
            await tx.run('UPDATE outbox SET attempts = attempts + 1, last_attempt_ms = ?, next_attempt_ms = ? WHERE id = ?', [
                nowMs,
                retryAtMs,
                id,
            ]);
            if (readyAtMs > nowMs) {
                await tx.run(`INSERT INTO outbox_destinations (destination, ready_at_ms) VALUES (?, ?)
           ON CONFLICT (destination) DO UPDATE SET ready_at_ms = excluded.ready_at_ms`, [destination, readyAtMs]);
            }
        });
    }
    /** One delivery pass over a destination. Never throws on a send failure: it is recorded. */
    async deliver(destination, o) {
        const { policy } = o;
        const counts = { sent: 0, retried: 0, failed: 0, expired: 0 };
        const done = (m, status, error) => {
            counts[status]++;
            o.report?.(m, status, error);
        };
        let readyAt = await this.readyAt(destination);
        const due = policy.ordered ? undefined : await this.due(destination, o.now(), policy.perPass);
        for (let n = 0; n < policy.perPass; n++) {
            const t0 = o.now();
            if (t0 < readyAt)
                break;
            const m = policy.ordered ? await this.head(destination) : due[n];
            if (!m || t0 < m.nextAttemptMs)
                break;
            if (policy.giveUpAfterMs !== undefined && t0 - m.createdMs > policy.giveUpAfterMs) {
                const error = `gave up after ${m.attempts} attempts: ${m.lastError ?? ''}`.trim();
                await this.finish(m, 'failed', error, t0, policy);
                done(m, 'expired', m.lastError ?? 'expired');
                continue;
            }
            readyAt = t0 + policy.minIntervalMs;
            const attempts = m.attempts + 1;
            // Written before the send: should we die now, a restart retries after the backoff.
            await this.markAttempt(m.id, destination, t0, t0 + retryDelay(policy.backoff, attempts, undefined, o.random), readyAt);
            let outcome;
            try {
                outcome = await o.send(m);
            }
            catch (err) {
                outcome = { kind: 'retry', error: err.message };
            }
            const t1 = o.now();
            const tried = { ...m, attempts };
            if (outcome.kind === 'ok') {
                await this.finish(tried, 'sent', null, t1, policy);
                done(tried, 'sent');
            }
            else if (outcome.kind === 'permanent') {
                await this.finish(tried, 'failed', outcome.error, t1, policy);
                done(tried, 'failed', outcome.error);
            }
            else if (policy.maxAttempts !== undefined && attempts >= policy.maxAttempts) {
                await this.finish(tried, 'failed', outcome.error, t1, policy);
                done(tried, 'expired', outcome.error);
            }
            else {
                const after = outcome.retryAfterMs === undefined ? undefined : Math.min(outcome.retryAfterMs, policy.maxRetryAfterMs);
                const retryAt = t1 + Math.max(retryDelay(policy.backoff, attempts, after, o.random), policy.minIntervalMs);
                const hold = outcome.rateLimited === true || after !== undefined;
                await this.retryLater(tried, outcome.error, retryAt, hold);
                if (hold)
                    readyAt = Math.max(readyAt, retryAt);
                done(tried, 'retried', outcome.error);
            }
        }
        return counts;
    }
    async due(destination, nowMs, limit) {
        const rows = await this.sql.all(`SELECT * FROM outbox WHERE destination = ? AND status = 'pending' AND next_attempt_ms <= ? ORDER BY next_attempt_ms, id LIMIT ?`, [destination, nowMs, limit]);
        return rows.map(fromOutboxRow);
    }
    async retryLater(m, error, retryAtMs, holdDestination) {
        await this.sql.tx(async (tx) => {
            await tx.run('UPDATE outbox SET next_attempt_ms = ?, last_error = ? WHERE id = ?', [retryAtMs, error, m.id]);
            if (!holdDestination)
                return;
            await tx.run(`INSERT INTO outbox_destinations (destination, ready_at_ms) VALUES (?, ?)
         ON CONFLICT (destination) DO UPDATE SET ready_at_ms = CASE WHEN excluded.ready_at_ms > outbox_destinations.ready_at_ms
           THEN excluded.ready_at_ms ELSE outbox_destinations.ready_at_ms END`, [m.destination, retryAtMs]);
        });
    }
    async finish(m, status, error, nowMs, policy) {
        const keep = typeof policy.keepDone === 'function' ? policy.keepDone(m) : policy.keepDone;
        if (!keep)
            await this.sql.run('DELETE FROM outbox WHERE id = ?', [m.id]);
        else
            await this.sql.run('UPDATE outbox SET status = ?, done_ms = ?, last_error = ? WHERE id = ?', [
                status,
                nowMs,
                error,
                m.id,
            ]);
    }
    /** Pending, sent and failed messages of the destinations whose name starts with `prefix`, and the latest failed ones. */
    async summary(prefix, failedLimit) {
        const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        const counts = await this.sql.all(`SELECT status, COUNT(*) AS n FROM outbox WHERE destination LIKE ? ESCAPE '\\' GROUP BY status`, [like]);
        const by = Object.fromEntries(counts.map((c) => [String(c.status), num(c.n)]));
        const failed = await this.sql.all(`SELECT * FROM outbox WHERE destination LIKE ? ESCAPE '\\' AND status = 'failed' ORDER BY id DESC LIMIT ?`, [like, failedLimit]);
        return {
            pending: by.pending ?? 0,
            sent: by.sent ?? 0,
            failed: by.failed ?? 0,
            recentFailures: failed.map(fromOutboxRow),
        };
    }
    async pending(destination) {
        const [r] = await this.sql.all(`SELECT COUNT(*) AS n FROM outbox WHERE destination = ? AND status = 'pending'`, [
            destination,
        ]);
        return num(r?.n);
    }
    /** Deletes delivered and failed messages of these destinations done before the cutoff. */
    async prune(prefix, beforeMs) {
        const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        return this.sql.run(`DELETE FROM outbox WHERE destination LIKE ? ESCAPE '\\' AND status <> 'pending' AND done_ms < ?`, [like, beforeMs]);
    }
}
//# sourceMappingURL=outbox.js.map