/** The alert rules, every instance with its last value, the notifiers (no secrets) and the outbox. */
import type { Alerting } from '../alerts/setup.js';

/** What GET /api/alerts answers (the built-in page shows the same). */
export async function alertsSnapshot(a: Alerting | undefined) {
  if (!a) return { rules: [], alerts: [], notifiers: [], outbox: { pending: 0, sent: 0, failed: 0, recentFailures: [] } };
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const [states, outbox] = await Promise.all([a.store.states(), a.store.outboxSummary(20)]);
  return {
    rules: a.rules.map((r) => ({
      name: r.config.name,
      kind: r.config.kind,
      severity: r.config.severity,
      forMs: r.config.forMs,
      keepFiringForMs: r.config.keepFiringForMs,
      repeatIntervalMs: r.config.repeatIntervalMs,
      notify: r.notifiers,
      params: r.params,
    })),
    alerts: states.map((s) => ({
      rule: s.rule,
      labels: s.labels,
      state: s.state,
      value: s.value,
      threshold: s.threshold,
      summary: s.summary,
      activeSince: iso(s.activeSince),
      firingSince: iso(s.firingSince),
      resolvedAt: iso(s.resolvedAt),
      lastNotifiedAt: iso(s.lastNotifiedAt),
      evaluatedAt: iso(s.evaluatedAt),
      details: s.details,
    })),
    notifiers: a.notifiers.map((n) => ({ name: n.name, kind: n.kind, target: n.target })),
    outbox: {
      pending: outbox.pending,
      sent: outbox.sent,
      failed: outbox.failed,
      // Permanent failures, surfaced: which message, to which notifier, and what the receiver said.
      recentFailures: outbox.recentFailures.map((r) => ({
        id: r.id,
        notifier: r.notifier,
        rule: r.message.rule,
        status: r.message.status,
        labels: r.message.labels,
        attempts: r.attempts,
        error: r.lastError,
        createdAt: iso(r.createdMs),
        failedAt: iso(r.doneMs),
      })),
    },
  };
}
