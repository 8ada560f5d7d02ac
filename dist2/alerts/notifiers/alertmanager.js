/**
 * Alertmanager as a notifier: toolwatch's alerts are posted to Alertmanager's own API
 * (`POST /api/v2/alerts`), the way Prometheus posts its alerts, so Alertmanager's silences,
 * inhibition, grouping and routing apply to them like to any other alert.
 *
 * As Prometheus does, a firing alert is sent again while it fires (every `resend_interval`, at the
 * evaluations: the evaluator queues the re-sends) with `endsAt` a few intervals ahead — should
 * toolwatch stop sending, Alertmanager resolves the alert by itself once that time passes. A
 * resolved alert is sent once with `endsAt` = the resolution time (the outbox retries it until it
 * is taken). Alertmanager has no rate limit: messages go out back to back.
 */
import { durationMs, durationSchema } from '../../util/duration.js';
import { alertAnnotations, alertLabels, describeAlert } from '../message.js';
import { sendJson } from './http-result.js';
import { checkWebhookUrl, redactUrl } from './url-guard.js';
/** Prometheus' default (`--rules.alert.resend-delay`). */
export const DEFAULT_RESEND_MS = 60_000;
/** endsAt = now + this many resend (or evaluation) intervals, as Prometheus computes it. */
const LIFETIME_INTERVALS = 4;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** The API endpoint under the Alertmanager URL (which may carry a route prefix, or be the endpoint already). */
export function alertsEndpoint(base) {
    const u = new URL(base);
    const path = u.pathname.replace(/\/+$/, '');
    u.pathname = path.endsWith('/api/v2/alerts') ? path : `${path}/api/v2/alerts`;
    return u.toString();
}
const iso = (ms) => new Date(ms).toISOString();
/** One postable alert (Alertmanager's API v2 schema): labels, annotations, startsAt, endsAt, generatorURL. */
export function postableAlert(m, o) {
    // Static labels first: the alert's own (alertname, severity, the group) win. An empty value is an absent label.
    const labels = Object.fromEntries(Object.entries({ ...o.labels, ...alertLabels(m) }).filter(([, v]) => v !== ''));
    const annotations = { ...alertAnnotations(m), description: describeAlert(m), failures: m.link };
    const endsAt = m.status === 'resolved' ? (m.endsAt ?? o.nowMs) : o.nowMs + o.lifetimeMs;
    return {
        labels,
        annotations,
        startsAt: iso(m.startsAt),
        endsAt: iso(endsAt),
        // Alertmanager wants a URI here; without alerts.public_url our links are relative.
        ...(m.page && /^https?:\/\//.test(m.page) ? { generatorURL: m.page } : {}),
    };
}
export const alertmanagerKind = {
    needsUrl: true,
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
            resend_interval: durationSchema,
            labels: { type: 'object', additionalProperties: { type: 'string' } },
        },
    },
    check(s) {
        // Alertmanager usually runs next to toolwatch, on a private network: private addresses are expected.
        const problems = checkWebhookUrl('webhook', s.url, { allowPrivateAddresses: true });
        const resendMs = s.options.resend_interval === undefined ? undefined : durationMs(s.options.resend_interval);
        if (resendMs !== undefined && resendMs < 1000)
            problems.push({ key: 'resend_interval', problem: 'must be at least 1s' });
        for (const name of Object.keys(s.options.labels ?? {})) {
            if (!LABEL_NAME.test(name) || name.startsWith('__')) {
                problems.push({
                    key: `labels.${name}`,
                    problem: 'is not a label name Alertmanager takes ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)',
                });
            }
        }
        return problems;
    },
    create(s, deps) {
        const url = alertsEndpoint(s.url);
        const resendMs = s.options.resend_interval === undefined ? DEFAULT_RESEND_MS : durationMs(s.options.resend_interval);
        const labels = s.options.labels;
        const lifetimeMs = LIFETIME_INTERVALS * Math.max(resendMs, deps.evaluationIntervalMs);
        return {
            name: s.name,
            kind: 'alertmanager',
            target: redactUrl(url),
            resendMs,
            delivery: { minIntervalMs: 0, perPass: 64 },
            send: (m, signal) => {
                const body = [postableAlert(m, { nowMs: deps.now(), lifetimeMs, ...(labels ? { labels } : {}) })];
                return sendJson(url, body, { timeoutMs: deps.timeoutMs, signal, allowPrivateAddresses: true }, deps.now);
            },
        };
    },
};
//# sourceMappingURL=alertmanager.js.map