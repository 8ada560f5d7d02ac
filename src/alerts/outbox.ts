/**
 * Delivers the outbox. Guarantees, per notifier (one webhook):
 * - FIFO: only the oldest pending message is tried, so a resolved never overtakes its firing;
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
import type { AlertStore, OutboxRow } from './alert-store.js';
import type { AlertsConfig } from './config.js';
import type { Notifier, SendResult } from './notifiers/registry.js';

export interface OutboxDeps {
  store: AlertStore;
  notifiers: readonly Notifier[];
  delivery: AlertsConfig['delivery'];
  now: () => number;
  log: Logger;
  onResult?: (notifier: string, status: 'sent' | 'retried' | 'failed') => void;
}

/** Retry-After beyond this is treated as this (a broken header must not park a webhook for days). */
const MAX_RETRY_AFTER_MS = 3_600_000;

export function backoffMs(attempts: number, d: AlertsConfig['delivery']): number {
  return Math.min(d.maxBackoffMs, d.minBackoffMs * 2 ** Math.max(0, Math.min(30, attempts - 1)));
}

export class OutboxWorker {
  private readonly inFlight = new Set<AbortController>();
  private running: Promise<unknown> | null = null;

  constructor(private readonly deps: OutboxDeps) {}

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
    const { store, delivery, now } = this.deps;
    const head = await store.head(n.name);
    if (!head) return;
    const t0 = now();
    if (t0 < head.nextAttemptMs || t0 < (await store.notifierReadyAt(n.name))) return;
    if (t0 - head.createdMs > delivery.giveUpAfterMs) {
      await store.markFailed(head.id, `gave up after ${head.attempts} attempts: ${head.lastError ?? ''}`.trim(), t0);
      this.report(n, head, 'failed', head.lastError ?? 'expired');
      return;
    }
    // Written before the send: should we die now, a restart retries after the backoff.
    await store.markAttempt(head.id, n.name, t0, t0 + backoffMs(head.attempts + 1, delivery), t0 + delivery.minIntervalMs);
    const ctrl = new AbortController();
    this.inFlight.add(ctrl);
    let result: SendResult;
    try {
      result = await n.send(head.message, ctrl.signal);
    } catch (err) {
      result = { ok: false, retry: true, error: (err as Error).message };
    } finally {
      this.inFlight.delete(ctrl);
    }
    const t1 = now();
    if (result.ok) {
      await store.markSent(head.id, t1);
      this.report(n, head, 'sent');
    } else if (result.retry) {
      const wait = Math.max(backoffMs(head.attempts + 1, delivery), Math.min(result.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS), delivery.minIntervalMs);
      await store.markRetry(head.id, n.name, result.error, t1 + wait);
      this.report(n, head, 'retried', result.error);
    } else {
      await store.markFailed(head.id, result.error, t1);
      this.report(n, head, 'failed', result.error);
    }
  }

  private report(n: Notifier, row: OutboxRow, status: 'sent' | 'retried' | 'failed', error?: string): void {
    this.deps.onResult?.(n.name, status);
    const ctx = { notifier: n.name, kind: n.kind, target: n.target, outbox: row.id, rule: row.message.rule, status: row.message.status, attempt: row.attempts + 1 };
    if (status === 'sent') this.deps.log.info(ctx, 'alert notification sent');
    else if (status === 'retried') this.deps.log.warn({ ...ctx, error }, 'alert notification failed; will retry');
    else this.deps.log.error({ ...ctx, error }, 'alert notification failed permanently; not retried');
  }
}
