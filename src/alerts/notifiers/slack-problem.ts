/**
 * The Slack layout of a problem alert (new_problem, regressed_problem): what fails in words, where
 * (service, tool, models), how many calls since when, the first example with its arguments, and a
 * link to the problem's page (/problems/:id). Every name from the spans is an escaped code span.
 */
import type { AlertMessage } from '../message.js';
import { callsText, clock, costText, modelsText, renderWords, seenText, type Render } from '../problem-message.js';
import type { ProblemFacts } from '../rules.js';
import { clip, slackCode, slackEscape as esc } from './slack-text.js';

const slack: Render = { text: esc, code: (s) => `\`${slackCode(s)}\`` };

const TITLE = { new: 'NEW PROBLEM', regressed: 'REGRESSED PROBLEM' } as const;

export function slackProblemPayload(m: AlertMessage, f: ProblemFacts): Record<string, unknown> {
  const at = m.status === 'resolved' ? (m.endsAt ?? m.startsAt) : m.startsAt;
  const what = renderWords(f.what, slack);
  const title = TITLE[f.transition];
  const head =
    m.status === 'resolved'
      ? `:white_check_mark: RESOLVED ${title}`
      : `${f.transition === 'regressed' ? ':repeat:' : ':warning:'} ${m.repeat ? `STILL ${title}` : title}`;
  const numbers =
    m.status === 'resolved'
      ? `no longer ${f.transition === 'new' ? 'open' : 'regressed'} (resolved or muted) — ${f.occurrences} call${f.occurrences === 1 ? '' : 's'} in all, last seen ${clock(f.lastSeenMs, at)}`
      : `${callsText(f)}, ${modelsText(f, slack)}, ${seenText(f, at)}`;
  const cost = costText(f.cost);
  const blocks: Record<string, unknown>[] = [
    // The header is plain text, where nothing can be escaped: only our own words go there.
    { type: 'header', text: { type: 'plain_text', text: head, emoji: true } },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: clip(`*${what}*\n${numbers}${cost ? `\n${esc(cost)}` : ''}`, 2900) },
    },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Service*\n${slack.code(f.service)}` },
        { type: 'mrkdwn', text: `*Tool*\n${slack.code(f.tool)}` },
        { type: 'mrkdwn', text: `*First seen*\n${new Date(f.firstSeenMs).toISOString().slice(0, 19)}Z` },
        { type: 'mrkdwn', text: `*Last seen*\n${new Date(f.lastSeenMs).toISOString().slice(0, 19)}Z` },
        { type: 'mrkdwn', text: `*Calls*\n${f.occurrences}` },
        ...(f.cost ? [{ type: 'mrkdwn', text: `*Cost*\n${esc(cost ?? 'no repair recorded yet')}` }] : []),
        { type: 'mrkdwn', text: `*Rule*\n${esc(m.rule)} (${esc(m.kind)}, ${esc(m.severity)})` },
      ],
    },
  ];
  const ex = m.details.example;
  if (m.status === 'firing' && ex) {
    const args =
      f.arguments === undefined ? '' : `\n*Arguments*\n\`\`\`${clip(slackCode(f.arguments, true), 800)}\`\`\``;
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: clip(
          `*First example* (${slack.code(ex.name)}, trace ${slack.code(ex.traceId)}, ${ex.time})\n\`\`\`${clip(slackCode(ex.message, true), 500)}\`\`\`${args}`,
          2900,
        ),
      },
    });
  }
  blocks.push({
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        // Our own link (the id is hex, the base alerts.public_url) stays live; anything else is text.
        text: /^https?:\/\/[^\s|<>]+$/.test(m.link) ? `<${m.link}|Problem ${f.id}>` : `Problem: ${esc(m.link)}`,
      },
    ],
  });
  const fallback = `${m.status === 'resolved' ? 'Resolved' : f.transition === 'new' ? 'New problem' : 'Regressed problem'} in ${slack.code(f.service)}: ${what} — ${numbers}${cost ? `; ${esc(cost)}` : ''}`;
  return { text: clip(fallback, 3000), blocks };
}
