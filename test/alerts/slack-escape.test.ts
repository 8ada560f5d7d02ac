/**
 * Span-controlled names in a Slack message (issue 17, finding 8): a service, tool, error path or
 * message that holds Slack syntax must arrive as text — in the fallback `text` (what notifications
 * show) as well as in the blocks — and a backtick must not close the code span it is shown in.
 * Sent through the real notifier to a local Slack-like server, read back as Slack would parse it.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertMessage } from '../../src/alerts/message.js';
import { slackKind } from '../../src/alerts/notifiers/slack.js';
import { fakeSlack, slackText, type FakeSlack } from '../fakes/slack.js';

let slack: FakeSlack | undefined;
afterEach(async () => {
  await slack?.close();
  slack = undefined;
});

function message(hostile: string): AlertMessage {
  return {
    status: 'firing',
    repeat: false,
    rule: 'tool-errors',
    kind: 'error_rate',
    severity: 'critical',
    labels: { service: hostile },
    groupKey: 'g',
    fingerprint: 'f',
    value: 0.5,
    threshold: 0.2,
    summary: `error rate of ${hostile} is 50.0%`,
    details: {
      window: '5m',
      topTools: [{ tool: hostile, failed: 5, checked: 10 }],
      shifts: [{ tool: hostile, before: 0.1, after: 0.6 }],
      example: {
        tool: hostile,
        name: hostile,
        outcome: 'SchemaViolation',
        path: hostile,
        message: `must be string ${hostile}`,
        traceId: hostile,
        time: '2026-01-01T00:00:00Z',
      },
    },
    startsAt: 0,
    endsAt: null,
    link: 'https://toolwatch.example.com/api/failures?service=x&tool=y',
  };
}

const HOSTILE: [string, string][] = [
  ['a channel mention', '<!channel>'],
  ['a user mention', '<@U012AB3CD>'],
  ['a labelled link', '<http://evil.example|click here>'],
  ['a backtick closing the code span', 'get`<!here>`x'],
  ['a triple backtick closing the code block', 'x```*bold* <!everyone>'],
  ['a line break ending the span', 'tool\n<!channel>'],
  ['an entity', '&lt;!channel&gt;'],
];

/** What Slack would act on: an unescaped < (a mention or a link) other than our own link. */
function liveSyntax(s: string): string[] {
  return [...s.replace(/<https:\/\/toolwatch\.example\.com\/[^|>]*\|Failures>/g, '').matchAll(/<[^>]*>?/g)].map(
    (m) => m[0],
  );
}

/** The text outside code spans and blocks, as Slack splits it on backticks. */
function outsideCode(s: string): string {
  return s.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
}

describe('Slack messages carry span-controlled names as text', () => {
  it.each(HOSTILE)('%s', async (_, hostile) => {
    slack = await fakeSlack();
    const n = slackKind.create(
      {
        name: 'oncall',
        kind: 'slack',
        url: `${slack.url}/services/T/B/x`,
        options: { allow_any_url: true },
      },
      { timeoutMs: 2000, evaluationIntervalMs: 1000, log: pino({ level: 'silent' }), now: Date.now },
    );
    await n.send(message(hostile), new AbortController().signal);
    const body = slack.received[0]!.body;
    for (const text of [body.text, slackText(body)]) {
      expect(liveSyntax(text)).toEqual([]);
      // Every backtick we did not write is gone: code spans pair up, nothing leaks out of them.
      expect(outsideCode(text)).not.toContain('`');
      expect(outsideCode(text)).not.toMatch(/<!|<@|<http:/);
    }
    // The name is still readable: its entities decode back to what was sent (backticks as look-alikes).
    const decoded = slackText(body).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    expect(decoded).toContain(hostile.replace(/`/g, '\u02cb').replace(/\n/g, ' '));
    expect(body.text).toContain(hostile.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
  });

  it('keeps its own link live', async () => {
    slack = await fakeSlack();
    const n = slackKind.create(
      {
        name: 'oncall',
        kind: 'slack',
        url: `${slack.url}/services/T/B/x`,
        options: { allow_any_url: true },
      },
      { timeoutMs: 2000, evaluationIntervalMs: 1000, log: pino({ level: 'silent' }), now: Date.now },
    );
    await n.send(message('get_weather'), new AbortController().signal);
    expect(slackText(slack.received[0]!.body)).toContain(
      '<https://toolwatch.example.com/api/failures?service=x&tool=y|Failures>',
    );
    expect(slack.received[0]!.body.text).toContain('get_weather');
  });
});

/** A new_problem message whose every span-controlled field holds the hostile text. */
function problemMessage(hostile: string): AlertMessage {
  const m = message(hostile);
  return {
    ...m,
    kind: 'new_problem',
    link: 'https://toolwatch.example.com/problems/0123456789abcdef',
    details: {
      ...m.details,
      problem: {
        id: '0123456789abcdef',
        service: hostile,
        tool: hostile,
        outcome: 'SchemaMismatch',
        transition: 'new',
        what: [{ code: hostile }, { text: ': ' }, { code: hostile }, { text: ' is missing' }],
        occurrences: 3,
        firstSeenMs: 0,
        lastSeenMs: 60_000,
        sinceMs: 0,
        models: [
          { model: hostile, count: 2 },
          { model: 'gpt-4o', count: 1 },
        ],
        moreModels: 0,
        arguments: `{"note":"${hostile}"}`,
      },
    },
  };
}

describe('Slack problem messages carry span-controlled names as text', () => {
  it.each(HOSTILE)('%s', async (_, hostile) => {
    slack = await fakeSlack();
    const n = slackKind.create(
      { name: 'oncall', kind: 'slack', url: `${slack.url}/services/T/B/x`, options: { allow_any_url: true } },
      { timeoutMs: 2000, evaluationIntervalMs: 1000, log: pino({ level: 'silent' }), now: Date.now },
    );
    await n.send(problemMessage(hostile), new AbortController().signal);
    const body = slack.received[0]!.body;
    const ours = /<https:\/\/toolwatch\.example\.com\/problems\/0123456789abcdef\|Problem 0123456789abcdef>/g;
    for (const text of [body.text, slackText(body)]) {
      expect(liveSyntax(text.replace(ours, ''))).toEqual([]);
      expect(outsideCode(text)).not.toContain('`');
      expect(outsideCode(text)).not.toMatch(/<!|<@|<http:/);
    }
    const decoded = slackText(body).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    expect(decoded).toContain(hostile.replace(/`/g, '\u02cb').replace(/\n/g, ' '));
    expect(slackText(body)).toContain(
      '<https://toolwatch.example.com/problems/0123456789abcdef|Problem 0123456789abcdef>',
    );
  });
});
