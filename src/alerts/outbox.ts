/**
 * Delivers the alert notifications through the delivery outbox (src/delivery/outbox.ts), one
 * ordered destination per notifier (one webhook):
 * - FIFO: a resolved never overtakes its firing;
 * - at most one message per `min_interval` (default 1 s — Slack's limit for incoming webhooks);
 * - 5xx, 408, 429, timeouts and network errors are retried with exponential backoff
 *   (min_backoff doubling up to max_backoff), a Retry-After (seconds or date) holding the whole
 *   notifier; after give_up_after the message is marked failed;
 * - other 4xx, redirects and refused addresses are permanent: recorded as failed, counted,
 *   logged, shown by /api/alerts, never retried;
 * - every attempt is recorded before it is made, so a process that dies mid-send resends the
 *   message after a restart: at most one duplicate per interrupted attempt (a timeout is such an
 *   interruption too: the receiver may have taken the message before we gave up waiting).
 */
import type { Logger } from 'pino';
import { MAX_RETRY_AFTER_MS, type DeliveryPolicy, type DeliveryStatus, type OutboxMessage } from '../delivery/outbox.js';
import { alertDestination, toOutboxRow, type AlertStore } from './alert-store.js';
import type { AlertsConfig } from './config.js';
import type { Notifier } from './notifiers/registry.js';

export interface OutboxDeps {
  store: AlertStore;
  notifiers: readonly Notifier[];
  delivery: AlertsConfig['delivery'];
  now: () => number;
  log: Logger;
  onResult?: (notifier: string, status: 'sent' | 'retried' | 'failed') => void;
}

export function alertDeliveryPolicy(d: AlertsConfig['delivery']): DeliveryPolicy {
  return {
    ordered: true,
    backoff: { baseMs: d.minBackoffMs, maxMs: d.maxBackoffMs },
    minIntervalMs: d.minIntervalMs,
    maxRetryAfterMs: MAX_RETRY_AFTER_MS,
    giveUpAfterMs: d.giveUpAfterMs,
    keepDone: true,
    perPass: 1,
  };
}

export class OutboxWorker {
  private readonly inFlight = new Set<AbortController>();
  private running: Promise<unknown> | null = null;
  private readonly policy: DeliveryPolicy;

  constructor(private readonly deps: OutboxDeps) {
    this.policy = alertDeliveryPolicy(deps.delivery);
  }

  /** One pass: at most one message per notifier, notifiers in parallel. */
  async tick(): Promise<void> {
    const pass = Promise.all(this.deps.notifiers.map((n) => this.deliverOne(n)));
    this.running = pass;
    try {
      await pass;
    } finally {
      if (this.running === pass) this.running = null;
    }
  }

  /** Lets an in-flight send finish for up to graceMs, then aborts it (it will be resent after a restart). */
  async stop(graceMs: number): Promise<void> {
    const running = this.running;
    if (!running) return;
    const timer = setTimeout(() => this.abortAll(), graceMs);
    try {
      await running.catch(() => undefined);
    } finally {
      clearTimeout(timer);
    }
  }

  abortAll(): void {
    for (const c of this.inFlight) c.abort();
  }

  private async deliverOne(n: Notifier): Promise<void> {
    await this.deps.store.outbox.deliver(alertDestination(n.name), {
      policy: this.policy,
      now: this.deps.now,
      send: async (m) => {
        const ctrl = new AbortController();
        this.inFlight.add(ctrl);
        try {
          return await n.send(toOutboxRow(m).message, ctrl.signal);
        } finally {
          this.inFlight.delete(ctrl);
        }
      },
      report: (m, status, error) => this.report(n, m, status, error),
    });
  }

  private report(n: Notifier, m: OutboxMessage, status: DeliveryStatus, error?: string): void {
    const counted = status === 'expired' ? 'failed' : status;
    this.deps.onResult?.(n.name, counted);
    const { message } = toOutboxRow(m);
    const ctx = { notifier: n.name, kind: n.kind, target: n.target, outbox: m.id, rule: message.rule, status: message.status, attempt: m.attempts };
    if (counted === 'sent') this.deps.log.info(ctx, 'alert notification sent');
    else if (counted === 'retried') this.deps.log.warn({ ...ctx, error }, 'alert notification failed; will retry');
    else this.deps.log.error({ ...ctx, error }, 'alert notification failed permanently; not retried');
  }
}
