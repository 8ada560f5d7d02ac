import { MAX_RETRY_AFTER_MS } from '../store/outbox.js';
import { alertDestination, toOutboxRow } from './alert-store.js';
export function alertDeliveryPolicy(d) {
    return {
        ordered: true,
        backoff: { baseMs: d.minBackoffMs, maxMs: d.maxBackoffMs },
        minIntervalMs: d.minIntervalMs,
        maxRetryAfterMs: MAX_RETRY_AFTER_MS,
        giveUpAfterMs: d.giveUpAfterMs,
        // Transitions are kept for /api/alerts; re-sends of a firing alert (queued with a key, every
        // minute while it fires) are deleted once done, so a long-firing alert does not fill the table.
        keepDone: (m) => m.key === null,
        perPass: 1,
    };
}
/** A notifier's own policy: the shared settings, with what its kind overrides (Alertmanager has no rate limit). */
export function notifierDeliveryPolicy(d, n) {
    return { ...alertDeliveryPolicy(d), ...n.delivery };
}
/**
 * Each notifier is delivered by its own loop (a pass per notifier, under its own lock): a receiver
 * that hangs for the whole timeout, or sits out a Retry-After, holds back only its own messages.
 */
export class OutboxWorker {
    deps;
    inFlight = new Set();
    /** The pass in progress, per notifier. */
    running = new Map();
    policies;
    constructor(deps) {
        this.deps = deps;
        this.policies = new Map(deps.notifiers.map((n) => [n.name, notifierDeliveryPolicy(deps.delivery, n)]));
    }
    /** One pass for every notifier, side by side. */
    async tick() {
        await Promise.all(this.deps.notifiers.map((n) => this.deliver(n)));
    }
    /** One pass for one notifier: its due messages, oldest first, within its policy. */
    async deliver(n) {
        const pass = this.deliverOne(n);
        this.running.set(n.name, pass);
        try {
            await pass;
        }
        finally {
            if (this.running.get(n.name) === pass)
                this.running.delete(n.name);
        }
    }
    /** Lets in-flight sends finish for up to graceMs, then aborts them (they will be resent after a restart). */
    async stop(graceMs) {
        const running = [...this.running.values()];
        if (running.length === 0)
            return;
        const timer = setTimeout(() => this.abortAll(), graceMs);
        try {
            await Promise.all(running.map((p) => p.catch(() => undefined)));
        }
        finally {
            clearTimeout(timer);
        }
    }
    abortAll() {
        for (const c of this.inFlight)
            c.abort();
    }
    async deliverOne(n) {
        await this.deps.store.outbox.deliver(alertDestination(n.name), {
            policy: this.policies.get(n.name) ?? alertDeliveryPolicy(this.deps.delivery),
            now: this.deps.now,
            send: async (m) => {
                const ctrl = new AbortController();
                this.inFlight.add(ctrl);
                try {
                    return await n.send(toOutboxRow(m).message, ctrl.signal);
                }
                finally {
                    this.inFlight.delete(ctrl);
                }
            },
            report: (m, status, error) => this.report(n, m, status, error),
        });
    }
    report(n, m, status, error) {
        const counted = status === 'expired' ? 'failed' : status;
        this.deps.onResult?.(n.name, counted);
        const { message } = toOutboxRow(m);
        const ctx = {
            notifier: n.name,
            kind: n.kind,
            target: n.target,
            outbox: m.id,
            rule: message.rule,
            status: message.status,
            attempt: m.attempts,
        };
        if (counted === 'sent')
            this.deps.log.info(ctx, 'alert notification sent');
        else if (counted === 'retried')
            this.deps.log.warn({ ...ctx, error }, 'alert notification failed; will retry');
        else
            this.deps.log.error({ ...ctx, error }, 'alert notification failed permanently; not retried');
    }
}
//# sourceMappingURL=outbox.js.map