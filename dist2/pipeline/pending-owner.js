/**
 * Which process counts a waiting call (a tool-span-only call in pending_calls; README: Reliability).
 * Exactly one: a process holds the rows it writes under its own id and a lease it renews (a row in
 * pending_owners); a process takes over only rows nobody holds — their holder released them when it
 * stopped, or its lease ran out — and counts a row only while it still holds it (Store.settlePending).
 * So replicas restarting one after another never count each other's waiting calls, and those of a
 * replica that died are counted once, by whichever process takes them first.
 *
 * SQLite: one process serves a file, so a process starting takes every row at once (the previous one
 * is gone, whatever its lease says); after that it holds and renews like any other.
 */
import { randomUUID } from 'node:crypto';
import { num } from '../store/rows.js';
/** PostgreSQL: processes take over rows one at a time, each seeing what the one before committed. */
const CLAIM_LOCK = 'toolwatch:pending-claim';
const RETURNING = 'RETURNING trace_id, call_key, due_ms, payload, owner';
function toRow(r) {
    return {
        traceId: String(r.trace_id),
        callKey: String(r.call_key),
        dueMs: num(r.due_ms),
        payload: String(r.payload),
        owner: r.owner === null || r.owner === undefined ? null : String(r.owner),
    };
}
export class PendingOwner {
    sql;
    opts;
    /** This process's id in pending_calls.owner. */
    id = randomUUID();
    constructor(sql, opts) {
        this.sql = sql;
        this.opts = opts;
    }
    /** Every third of the lease: renew, then take over what nobody holds. */
    get renewEveryMs() {
        return Math.max(100, Math.floor(this.opts.leaseMs / 3));
    }
    /** Registers this process and takes the rows it may count now (before the process receives anything). */
    async start() {
        await this.register();
        return this.take(this.opts.takeAllAtStart);
    }
    /** Renews the lease and takes over rows nobody holds; returns them (to put into the ledger). */
    async renew() {
        const now = this.opts.now();
        const renewed = await this.sql.run('UPDATE pending_owners SET lease_until = ? WHERE owner = ?', [
            now + this.opts.leaseMs,
            this.id,
        ]);
        // Gone: its lease ran out long enough ago that another process cleaned it up (a stall). Its rows
        // may have been taken over meanwhile; settling counts only rows still held.
        if (renewed === 0)
            await this.register();
        const taken = await this.take(false);
        // Holders whose lease ran out a lease ago and who hold nothing any more.
        await this.sql.run(`DELETE FROM pending_owners WHERE lease_until < ?
       AND owner NOT IN (SELECT owner FROM pending_calls WHERE owner IS NOT NULL)`, [now - this.opts.leaseMs]);
        return taken;
    }
    /** Deletes rows this process holds (calls it knows were counted from their proposal). */
    async drop(keys) {
        for (const k of keys) {
            await this.sql.run('DELETE FROM pending_calls WHERE trace_id = ? AND call_key = ? AND owner = ?', [
                k.traceId,
                k.callKey,
                this.id,
            ]);
        }
    }
    /** At a graceful stop: nobody holds its rows any more, so the next process to look takes them at once. */
    async release() {
        await this.sql.run('DELETE FROM pending_owners WHERE owner = ?', [this.id]);
    }
    async register() {
        const now = this.opts.now();
        await this.sql.run(`INSERT INTO pending_owners (owner, lease_until, started_ms) VALUES (?, ?, ?)
       ON CONFLICT (owner) DO UPDATE SET lease_until = excluded.lease_until`, [this.id, now + this.opts.leaseMs, now]);
    }
    /** Rows nobody holds (or every row not ours), now held by this process. */
    take(all) {
        const orphan = `(owner IS NULL OR NOT EXISTS (
      SELECT 1 FROM pending_owners o WHERE o.owner = pending_calls.owner AND o.lease_until >= ?))`;
        const now = this.opts.now();
        if (this.sql.dialect === 'sqlite') {
            // One writer at a time: the UPDATE sees every commit before it.
            const where = all ? '(owner IS NULL OR owner <> ?)' : orphan;
            return this.sql
                .all(`UPDATE pending_calls SET owner = ? WHERE ${where} ${RETURNING}`, [this.id, all ? this.id : now])
                .then((rows) => rows.map(toRow));
        }
        return this.sql.tx(async (tx) => {
            await tx.all('SELECT pg_advisory_xact_lock(hashtext(?), 0)', [CLAIM_LOCK]);
            // Rows a batch of their holder is writing right now are skipped (locked): their holder is alive.
            const rows = await tx.all(`UPDATE pending_calls SET owner = ? WHERE (trace_id, call_key) IN (
           SELECT trace_id, call_key FROM pending_calls WHERE ${all ? '(owner IS NULL OR owner <> ?)' : orphan}
           FOR UPDATE SKIP LOCKED)
         ${RETURNING}`, [this.id, all ? this.id : now]);
            return rows.map(toRow);
        });
    }
}
//# sourceMappingURL=pending-owner.js.map