import { isRestricted } from '../util/service-view.js';
/** What GET /api/alerts answers (the built-in page shows the same). */
export async function alertsSnapshot(reader) {
    const a = reader.alerting;
    if (!a)
        return { rules: [], alerts: [], notifiers: [], outbox: { pending: 0, sent: 0, failed: 0, recentFailures: [] } };
    const iso = (ms) => (ms === null ? null : new Date(ms).toISOString());
    const [allStates, outbox] = await Promise.all([a.store.states(), a.store.outboxSummary(20)]);
    const { view } = reader;
    const restricted = isRestricted(view);
    const ruleService = new Map(a.rules.map((r) => [r.config.name, typeof r.params.service === 'string' ? r.params.service : undefined]));
    /** An alert's service: its group's, else its rule's; none when it spans every service. */
    const sees = (rule, labels) => {
        if (!restricted)
            return true;
        const service = labels.service ?? ruleService.get(rule);
        return service !== undefined && view.sees(service);
    };
    const states = allStates.filter((s) => sees(s.rule, s.labels));
    const rules = a.rules.filter((r) => {
        const service = ruleService.get(r.config.name);
        return service === undefined || view.sees(service);
    });
    return {
        rules: rules.map((r) => ({
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
            // Totals over every service's messages.
            pending: restricted ? null : outbox.pending,
            sent: restricted ? null : outbox.sent,
            failed: restricted ? null : outbox.failed,
            // Permanent failures, surfaced: which message, to which notifier, and what the receiver said.
            recentFailures: outbox.recentFailures
                .filter((r) => sees(r.message.rule, r.message.labels))
                .map((r) => ({
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
//# sourceMappingURL=alerts.js.map