/**
 * Slack incoming webhook, Block Kit: rule, group, value vs threshold, window, the top failing
 * tools with counts, one example failure with its validation error path, and a link to the
 * failures. `text` is the fallback shown in notifications.
 */
import { formatValue as fmt } from '../message.js';
import { pct } from '../rules.js';
import { sendJson } from './http-result.js';
import { checkWebhookUrl, redactUrl } from './url-guard.js';
import { clip, slackCode, slackEscape } from './slack-text.js';
import { slackProblemPayload } from './slack-problem.js';
const EMOJI = {
    critical: ':rotating_light:',
    warning: ':warning:',
    info: ':information_source:',
};
export { slackCode, slackEscape } from './slack-text.js';
const esc = slackEscape;
const code = (s) => `\`${slackCode(s)}\``;
function groupText(labels) {
    const parts = Object.entries(labels).map(([k, v]) => `${k}=${v}`);
    return parts.length ? parts.join(', ') : '(all)';
}
export function slackPayload(m) {
    if (m.details.problem)
        return slackProblemPayload(m, m.details.problem);
    const head = m.status === 'resolved'
        ? `:white_check_mark: RESOLVED ${m.rule}`
        : `${EMOJI[m.severity] ?? ':warning:'} ${m.repeat ? 'STILL FIRING' : 'FIRING'} ${m.rule}`;
    const group = groupText(m.labels);
    const cmp = m.kind === 'error_rate_drift' ? 'baseline' : 'threshold';
    const blocks = [
        { type: 'header', text: { type: 'plain_text', text: `${head}`.slice(0, 150), emoji: true } },
        {
            type: 'section',
            fields: [
                { type: 'mrkdwn', text: `*Rule*\n${esc(m.rule)} (${esc(m.kind)}, ${esc(m.severity)})` },
                { type: 'mrkdwn', text: `*Group*\n${esc(group)}` },
                { type: 'mrkdwn', text: `*Value*\n${fmt(m.kind, m.value)} vs ${cmp} ${fmt(m.kind, m.threshold)}` },
                { type: 'mrkdwn', text: `*Window*\n${esc(String(m.details.window ?? ''))}` },
            ],
        },
        { type: 'section', text: { type: 'mrkdwn', text: clip(esc(m.summary), 2900) } },
    ];
    const top = m.details.topTools ?? [];
    if (m.status === 'firing' && top.length) {
        const lines = top.map((t) => t.checked ? `• ${code(t.tool)}: ${t.failed} failed of ${t.checked}` : `• ${code(t.tool)}: ${t.failed}`);
        blocks.push({ type: 'section', text: { type: 'mrkdwn', text: clip(`*Top tools*\n${lines.join('\n')}`, 2900) } });
    }
    const shifts = m.details.shifts ?? [];
    if (m.status === 'firing' && shifts.length) {
        const lines = shifts.map((s) => `• ${code(s.tool)}: ${pct(s.before)} → ${pct(s.after)}`);
        blocks.push({
            type: 'section',
            text: { type: 'mrkdwn', text: clip(`*Share moved most*\n${lines.join('\n')}`, 2900) },
        });
    }
    const ex = m.details.example;
    if (m.status === 'firing' && ex) {
        const where = ex.path ? ` at ${code(ex.path)}` : '';
        blocks.push({
            type: 'section',
            text: {
                type: 'mrkdwn',
                text: `*Example* (${esc(ex.outcome)}, ${code(ex.name)}${where}, trace ${code(ex.traceId)})\n\`\`\`${clip(slackCode(ex.message, true), 500)}\`\`\``,
            },
        });
    }
    blocks.push({
        type: 'context',
        elements: [
            {
                type: 'mrkdwn',
                text: /^https?:\/\/[^\s|<>]+$/.test(m.link) // Our own link (built with URLSearchParams, so a name cannot put |, < or > in it) stays live.
                    ? `<${m.link}|Failures>`
                    : `Failures: ${esc(m.link)}`,
            },
        ],
    });
    return {
        // The fallback is parsed like mrkdwn (notifications, mentions): escaped the same way.
        text: clip(esc(`${m.status === 'resolved' ? 'Resolved' : 'Firing'}: ${m.rule} (${group}): ${m.summary}`), 3000),
        blocks,
    };
}
export const slackKind = {
    needsUrl: true,
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: { allow_any_url: { type: 'boolean', default: false } },
    },
    check: (s) => (s.url ? checkWebhookUrl('slack', s.url, { allowAnyUrl: s.options.allow_any_url }) : []),
    create(s, deps) {
        const url = s.url;
        return {
            name: s.name,
            kind: 'slack',
            target: redactUrl(url),
            send: (m, signal) => sendJson(url, slackPayload(m), { timeoutMs: deps.timeoutMs, signal, allowPrivateAddresses: s.options.allow_any_url }, deps.now),
        };
    },
};
//# sourceMappingURL=slack.js.map