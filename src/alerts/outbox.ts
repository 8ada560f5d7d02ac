/**
 * Delivers the alert notifications through the delivery outbox (src/store/outbox.ts), one
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
import { MAX_RETRY_AFTER_MS, type DeliveryPolicy, type DeliveryStatus, type OutboxMessage } from '../store/outbox.js';
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
    // Transitions are kept for /api/alerts; re-sends of a firing alert (queued with a key, every
    // minute while it fires) are deleted once done, so a long-firing alert does not fill the table.
    keepDone: (m) => m.key === null,
    perPass: 1,
  };
}

/** A notifier's own policy: the shared settings, with what its kind overrides (Alertmanager has no rate limit). */
export function notifierDeliveryPolicy(d: AlertsConfig['delivery'], n: Pick<Notifier, 'delivery'>): DeliveryPolicy {
  return { ...alertDeliveryPolicy(d), ...n.delivery };
}

/**
 * Each notifier is delivered by its own loop (a pass per notifier, under its own lock): a receiver
 * that hangs for the whole timeout, or sits out a Retry-After, holds back only its own messages.
 */
export class OutboxWorker {
  private readonly inFlight = new Set<AbortController>();
  /** The pass in progress, per notifier. */
  private readonly running = new Map<string, Promise<unknown>>();
  private readonly policies: Map<string, DeliveryPolicy>;

  constructor(private readonly deps: OutboxDeps) {
    this.policies = new Map(deps.notifiers.map((n) => [n.name, notifierDeliveryPolicy(deps.delivery, n)]));
  }

  /** One pass for every notifier, side by side. */
  async tick(): Promise<void> {
    await Promise.all(this.deps.notifiers.map((n) => this.deliver(n)));
  }

  /** One pass for one notifier: its due messages, oldest first, within its policy. */
  async deliver(n: Notifier): Promise<void> {
    const pass = this.deliverOne(n);
    this.running.set(n.name, pass);
    try {
      await pass;
    } finally {
      if (this.running.get(n.name) === pass) this.running.delete(n.name);
    }
  }

  /** Lets in-flight sends finish for up to graceMs, then aborts them (they will be resent after a restart). */
  async stop(graceMs: number): Promise<void> {
    const running = [...this.running.values()];
    if (running.length === 0) return;
    const timer = setTimeout(() => this.abortAll(), graceMs);
    try {
      await Promise.all(running.map((p) => p.catch(() => undefined)));
    } finally {
      clearTimeout(timer);
    }
  }

  abortAll(): void {
    for (const c of this.inFlight) c.abort();
  }

  private async deliverOne(n: Notifier): Promise<void> {
    await this.deps.store.outbox.deliver(alertDestination(n.name), {
      policy: this.policies.get(n.name) ?? alertDeliveryPolicy(this.deps.delivery),
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
    const ctx = {
      notifier: n.name,
      kind: n.kind,
      target: n.target,
      outbox: m.id,
      rule: message.rule,
      status: message.status,
      attempt: m.attempts,
    };
    if (counted === 'sent') this.deps.log.info(ctx, 'alert notification sent');
    else if (counted === 'retried') this.deps.log.warn({ ...ctx, error }, 'alert notification failed; will retry');
    else this.deps.log.error({ ...ctx, error }, 'alert notification failed permanently; not retried');
  }
}
