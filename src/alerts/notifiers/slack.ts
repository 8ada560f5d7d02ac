/**
 * Slack incoming webhook, Block Kit: rule, group, value vs threshold, window, the top failing
 * tools with counts, one example failure with its validation error path, and a link to the
 * failures. `text` is the fallback shown in notifications.
 */
import { formatValue as fmt, type AlertMessage } from '../message.js';
import { pct } from '../rules.js';
import { sendJson } from './http-result.js';
import type { NotifierKind } from './registry.js';
import { checkWebhookUrl, redactUrl } from './url-guard.js';
import { replaceControl } from '../../util/control-chars.js';

const EMOJI: Record<string, string> = {
  critical: ':rotating_light:',
  warning: ':warning:',
  info: ':information_source:',
};

/**
 * Slack's documented escaping for any text it parses (mrkdwn blocks and the fallback `text` alike):
 * &, < and > become entities, so `<!channel>`, `<@U…>` and `<http://x|label>` arrive as text.
 */
export function slackEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
const esc = slackEscape;

/**
 * Span-controlled text inside a code span or block. Slack has no escape for a backtick, so one in
 * the text would close the span and what follows would be formatted (or mention someone): each
 * becomes U+02CB (ˋ, a look-alike). Line breaks and other control characters end an inline span
 * too and become spaces (a code block keeps its line breaks).
 */
export function slackCode(s: string, block = false): string {
  const flat = replaceControl(s, { keepNewlines: block });
  return esc(flat.replace(/`/g, '\u02cb'));
}
const code = (s: string) => `\`${slackCode(s)}\``;

/** Cut to a length without leaving half an entity (`&am`) or half a surrogate pair at the end. */
function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  let out = s.slice(0, max);
  out = out.replace(/&[a-z]{0,3}$/, '');
  return /[\ud800-\udbff]$/.test(out) ? out.slice(0, -1) : out;
}

function groupText(labels: Record<string, string>): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}=${v}`);
  return parts.length ? parts.join(', ') : '(all)';
}

export function slackPayload(m: AlertMessage): Record<string, unknown> {
  const head =
    m.status === 'resolved'
      ? `:white_check_mark: RESOLVED ${m.rule}`
      : `${EMOJI[m.severity] ?? ':warning:'} ${m.repeat ? 'STILL FIRING' : 'FIRING'} ${m.rule}`;
  const group = groupText(m.labels);
  const cmp = m.kind === 'error_rate_drift' ? 'baseline' : 'threshold';
  const blocks: Record<string, unknown>[] = [
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
    const lines = top.map((t) =>
      t.checked ? `• ${code(t.tool)}: ${t.failed} failed of ${t.checked}` : `• ${code(t.tool)}: ${t.failed}`,
    );
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

export const slackKind: NotifierKind = {
  needsUrl: true,
  check: (s) => (s.url ? checkWebhookUrl('slack', s.url, { allowAnyUrl: s.allowAnyUrl }) : []),
  create(s, deps) {
    const url = s.url!;
    return {
      name: s.name,
      kind: 'slack',
      target: redactUrl(url),
      send: (m, signal) =>
        sendJson(
          url,
          slackPayload(m),
          { timeoutMs: deps.timeoutMs, signal, allowPrivateAddresses: s.allowAnyUrl },
          deps.now,
        ),
    };
  },
};
