/**
 * Generic webhook: a JSON POST in Alertmanager's webhook format (version 4), so anything that
 * takes Alertmanager notifications (PagerDuty/Opsgenie bridges, custom receivers) takes ours.
 * One message = one alert; groupKey is rule + group.
 */
import { alertAnnotations, alertLabels } from '../message.js';
import { sendJson } from './http-result.js';
import { checkWebhookUrl, redactUrl } from './url-guard.js';
export function alertmanagerPayload(m, receiver) {
    const labels = alertLabels(m);
    const iso = (ms) => (ms === null ? '0001-01-01T00:00:00Z' : new Date(ms).toISOString());
    const annotations = alertAnnotations(m);
    const alert = {
        status: m.status,
        labels,
        annotations,
        startsAt: iso(m.startsAt),
        endsAt: iso(m.status === 'resolved' ? m.endsAt : null),
        generatorURL: m.link,
        fingerprint: m.fingerprint,
    };
    return {
        version: '4',
        groupKey: `{}:{alertname="${m.rule}"}/${m.groupKey}`,
        truncatedAlerts: 0,
        status: m.status,
        receiver,
        groupLabels: { alertname: m.rule },
        commonLabels: labels,
        commonAnnotations: annotations,
        externalURL: /^https?:\/\//.test(m.link) ? new URL(m.link).origin : '',
        alerts: [alert],
        // Not in Alertmanager's format; receivers ignore unknown fields.
        toolwatch: { repeat: m.repeat, details: m.details },
    };
}
export const webhookKind = {
    needsUrl: true,
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: { allow_private_addresses: { type: 'boolean', default: false } },
    },
    check: (s) => s.url ? checkWebhookUrl('webhook', s.url, { allowPrivateAddresses: s.options.allow_private_addresses }) : [],
    create(s, deps) {
        const url = s.url;
        return {
            name: s.name,
            kind: 'webhook',
            target: redactUrl(url),
            send: (m, signal) => sendJson(url, alertmanagerPayload(m, s.name), { timeoutMs: deps.timeoutMs, signal, allowPrivateAddresses: s.options.allow_private_addresses }, deps.now),
        };
    },
};
//# sourceMappingURL=webhook.js.map