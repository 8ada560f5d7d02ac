/**
 * Where alert states live (one row per rule and group), over the store's SQL port, and the alerts'
 * view of the delivery outbox (one destination per notifier: `alert:<name>`). A state change and
 * its messages commit in one transaction.
 */
import { enqueueStatements, Outbox } from '../store/outbox.js';
import { byteOrder } from '../store/sql.js';
const PREFIX = 'alert:';
export const alertDestination = (notifier) => `${PREFIX}${notifier}`;
export function toOutboxRow(m) {
    const { destination, payload, ...rest } = m;
    return { ...rest, notifier: destination.slice(PREFIX.length), message: JSON.parse(payload) };
}
export class AlertStore {
    sql;
    outbox;
    constructor(sql) {
        this.sql = sql;
        this.outbox = new Outbox(sql);
    }
    async states() {
        const rows = await this.sql.all(`SELECT instance FROM alert_states ORDER BY ${byteOrder(this.sql, 'rule')}, ${byteOrder(this.sql, 'group_key')}`);
        return rows.map((r) => JSON.parse(String(r.instance)));
    }
    /** States and their notifications in one transaction: a transition never loses or doubles its message. */
    async commit(c) {
        await this.sql.tx(async (tx) => {
            for (const s of c.upsert) {
                await tx.run(`INSERT INTO alert_states (rule, group_key, state, updated_ms, instance) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (rule, group_key) DO UPDATE SET state = excluded.state, updated_ms = excluded.updated_ms, instance = excluded.instance`, [s.rule, s.groupKey, s.state, c.nowMs, JSON.stringify(s)]);
            }
            for (const r of c.remove)
                await tx.run('DELETE FROM alert_states WHERE rule = ? AND group_key = ?', [r.rule, r.groupKey]);
            for (const m of c.enqueue) {
                for (const [text, params] of enqueueStatements(alertDestination(m.notifier), [{ payload: JSON.stringify(m.message), ...(m.key ? { key: m.key } : {}) }], c.nowMs))
                    await tx.run(text, params);
            }
        });
    }
    /** The oldest pending message of a notifier (FIFO per notifier: a resolved never overtakes its firing). */
    async head(notifier) {
        const m = await this.outbox.head(alertDestination(notifier));
        return m ? toOutboxRow(m) : undefined;
    }
    /** Records an attempt before it is made (see Outbox.markAttempt). */
    markAttempt(id, notifier, nowMs, retryAtMs, notifierReadyAtMs) {
        return this.outbox.markAttempt(id, alertDestination(notifier), nowMs, retryAtMs, notifierReadyAtMs);
    }
    /** Counts by status, and the most recent permanently failed messages. */
    async outboxSummary(failedLimit) {
        const s = await this.outbox.summary(PREFIX, failedLimit);
        return { ...s, recentFailures: s.recentFailures.map(toOutboxRow) };
    }
    /** Deletes delivered / failed messages and resolved states older than the cutoff. */
    async prune(beforeMs) {
        const removed = await this.outbox.prune(PREFIX, beforeMs);
        return (removed + (await this.sql.run(`DELETE FROM alert_states WHERE state = 'resolved' AND updated_ms < ?`, [beforeMs])));
    }
}
//# sourceMappingURL=alert-store.js.map