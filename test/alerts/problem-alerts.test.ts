/**
 * new_problem and regressed_problem with a fixed clock, on both engines, through the real pipeline,
 * problem store, evaluator, outbox and Slack notifier to a local Slack stand-in: one message per
 * transition (new → resolved → regressed → muted), nothing for a stray call, nothing for a problem
 * reopened by hand or unmuted, and a problem whose spans are days old fires when it is first
 * recorded. The first Slack message is checked byte for byte.
 */
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createAlerting } from '../../src/alerts/setup.js';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { loadConfig } from '../../src/config.js';
import { builtinKinds } from '../../src/kinds.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { Span } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { Ledger } from '../../src/pipeline/ledger.js';
import { Pipeline } from '../../src/pipeline/pipeline.js';
import { problemRuleSource } from '../../src/problems/alert-kinds.js';
import { changeStatus, lifecycleRound } from '../../src/problems/lifecycle.js';
import { ProblemRecorder } from '../../src/problems/record.js';
import { listProblems } from '../../src/problems/store.js';
import { storeRedactor } from '../../src/redact/stored.js';
import { fakeSlack, type FakeSlack } from '../fakes/slack.js';
import { storeEngines } from '../helpers/engines.js';
import { makeSpan } from '../helpers/spans.js';
import { removeTempDirs, tempDir } from '../helpers/temp-dir.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-12-01T10:02:00.000Z');
let n = 0;

/** One model span (model m1, or the given one) proposing `count` refund_order calls without `amount`. */
function refunds(timeMs: number, count: number, model = 'gpt-4.1'): Span {
  n++;
  const parts = Array.from({ length: count }, (_, i) => ({
    type: 'tool_call',
    id: `c${n}-${i}`,
    name: 'refund_order',
    arguments: '{"order_id":"A-17"}',
  }));
  return makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': model,
      'gen_ai.tool.definitions': JSON.stringify([
        {
          type: 'function',
          name: 'refund_order',
          parameters: {
            type: 'object',
            properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
            required: ['order_id', 'amount'],
          },
        },
      ]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts }]),
    },
    {
      traceId: n.toString(16).padStart(32, 'a'),
      spanId: n.toString(16).padStart(16, 'b'),
      startTimeMs: timeMs - 10,
      endTimeMs: timeMs,
      service: 'shop',
    },
  );
}

/** A call of a tool nobody offered (UnknownName), from spans three days old. */
function invented(timeMs: number): Span {
  n++;
  return makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.tool.definitions': JSON.stringify([{ type: 'function', name: 'lookup', parameters: { type: 'object' } }]),
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          parts: [
            { type: 'tool_call', id: `u${n}a`, name: 'Cancel_Order', arguments: '{}' },
            { type: 'tool_call', id: `u${n}b`, name: 'cancel_order', arguments: '{}' },
          ],
        },
      ]),
    },
    {
      traceId: n.toString(16).padStart(32, 'c'),
      spanId: n.toString(16).padStart(16, 'd'),
      startTimeMs: timeMs - 10,
      endTimeMs: timeMs,
      service: 'shop',
    },
  );
}

let cleanup: (() => Promise<void>)[] = [];
afterAll(removeTempDirs);
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn();
  cleanup = [];
});

async function setup(engine: (typeof storeEngines)[number], slack: FakeSlack) {
  const opened = await engine.open();
  cleanup.push(opened.dispose);
  const { store } = opened;
  const clock = { now: T0 };
  const redactor = storeRedactor('secrets');
  const metrics = createMetrics();
  const pipeline = new Pipeline({
    dialects: builtinDialects(),
    registry: new ToolRegistry(),
    schemas: new SchemaCache(),
    ledger: new Ledger({ maxTraces: 1000, maxCallsPerTrace: 100, traceTtlMs: 100 * HOUR }),
    store,
    metrics,
    labels: new LabelCap(100),
    failuresPerToolPerMinute: 100,
    redactor,
    executionGraceMs: 10_000,
    now: () => clock.now,
    counted: new ProblemRecorder({ sql: store.sql, redactor, maxPerService: 100, now: () => clock.now }),
  });
  const kinds = builtinKinds();
  const config = loadConfig({
    cwd: tempDir('toolwatch-problem-alerts-'),
    env: {},
    overrides: {
      alerts: {
        public_url: 'https://toolwatch.example.com',
        rules: [
          { name: 'new-problems', kind: 'new_problem', min_occurrences: 3, within: '10m' },
          { name: 'regressions', kind: 'regressed_problem', severity: 'critical' },
        ],
        notifiers: [{ name: 'oncall', kind: 'slack', url: `${slack.url}/services/T/B/x`, allow_any_url: true }],
        delivery: { min_interval: '0s' },
      },
    },
  }).alerts;
  const alerting = createAlerting({
    config,
    kinds,
    store,
    // gpt-4.1 priced (USD per million tokens), gpt-4o not: the message says which tokens it could not price.
    sources: { problems: problemRuleSource(store.sql, { 'gpt-4.1': { input: 2, output: 8 } }) },
    log: pino({ level: 'silent' }),
    now: () => clock.now,
  });
  cleanup.push(() => alerting.stop());
  /** One evaluation and one delivery pass; what Slack got from it. */
  const round = async () => {
    const before = slack.received.length;
    const r = await alerting.evaluate(clock.now);
    // Slack takes one message per pass (its rate limit): passes until the outbox is empty.
    for (let i = 0; i < 5; i++) await alerting.deliver();
    expect(r!.errors).toEqual([]);
    return slack.received.slice(before).map((m) => m.body);
  };
  const heads = async () => (await round()).map((b) => (b.blocks[0]!.text as { text: string }).text);
  return { store, clock, pipeline, round, heads };
}

describe.each(storeEngines)('problem alerts on $name', (engine) => {
  it.skipIf(engine.skip)('one message per transition, through the real Slack payload', async () => {
    const slack = await fakeSlack();
    cleanup.push(() => slack.close());
    const { store, clock, pipeline, round, heads } = await setup(engine, slack);

    // A stray call: a problem, but under min_occurrences — nobody is paged.
    const stray = refunds(clock.now, 1);
    await pipeline.ingestSpans([stray]);
    expect(await heads()).toEqual([]);

    // Two more a minute later (three in all): new_problem fires, once.
    clock.now += 60_000;
    await pipeline.ingestSpans([refunds(clock.now, 2)]);
    const [first, ...rest] = await round();
    expect(rest).toEqual([]);
    const [p] = await listProblems(store.sql, 'shop');
    expect(first).toEqual({
      text: 'New problem in `shop`: `refund_order`: `amount` is missing — 3 calls in 1 min, `gpt-4.1` only, first seen 10:02 UTC',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: ':warning: NEW PROBLEM', emoji: true } },
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: '*`refund_order`: `amount` is missing*\n3 calls in 1 min, `gpt-4.1` only, first seen 10:02 UTC',
          },
        },
        {
          type: 'section',
          fields: [
            { type: 'mrkdwn', text: '*Service*\n`shop`' },
            { type: 'mrkdwn', text: '*Tool*\n`refund_order`' },
            { type: 'mrkdwn', text: '*First seen*\n2026-12-01T10:02:00Z' },
            { type: 'mrkdwn', text: '*Last seen*\n2026-12-01T10:03:00Z' },
            { type: 'mrkdwn', text: '*Calls*\n3' },
            { type: 'mrkdwn', text: '*Cost*\nno repair recorded yet' },
            { type: 'mrkdwn', text: '*Rule*\nnew-problems (new_problem, warning)' },
          ],
        },
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text:
              `*First example* (\`refund_order\`, trace \`${stray.traceId}\`, 2026-12-01T10:02:00.000Z)\n` +
              '```/ must have required property \'amount\'```\n*Arguments*\n```{"order_id":"A-17"}```',
          },
        },
        {
          type: 'context',
          elements: [
            {
              type: 'mrkdwn',
              text: `<https://toolwatch.example.com/problems/${p!.id}|Problem ${p!.id}>`,
            },
          ],
        },
      ],
    });
    // Alertmanager's generatorURL (the message's page) is the problem's page too.
    const [row] = await store.sql.all('SELECT payload FROM outbox ORDER BY id LIMIT 1');
    const sent = JSON.parse(String(row!.payload)) as { link: string; page: string };
    expect([sent.link, sent.page]).toEqual([
      `https://toolwatch.example.com/problems/${p!.id}`,
      `https://toolwatch.example.com/problems/${p!.id}`,
    ]);

    // More of it, later rounds: still one message in all.
    clock.now += 60_000;
    await pipeline.ingestSpans([refunds(clock.now, 5, 'gpt-4o')]);
    expect(await heads()).toEqual([]);

    // Spans three days old, first recorded now: new, whatever their age.
    await pipeline.ingestSpans([invented(clock.now - 72 * HOUR), invented(clock.now - 72 * HOUR + 1)]);
    const old = await round();
    expect(old.map((b) => b.text)).toEqual([
      'New problem in `shop`: `cancel_order` called, a tool that was not offered — 4 calls in 1 min, `gpt-4o` only, first seen 2026-11-28 10:04 UTC',
    ]);

    // Past `within`, both still open: their alerts last (no resolved message, no second firing).
    clock.now += 20 * 60_000;
    expect(await heads()).toEqual([]);

    // Quiet for resolve_after: both problems resolved → each alert sends its one resolved message.
    clock.now += 25 * HOUR - 20 * 60_000;
    await lifecycleRound(store.sql, { set: () => undefined }, clock.now, 24 * HOUR);
    expect(await heads()).toEqual([
      ':white_check_mark: RESOLVED NEW PROBLEM',
      ':white_check_mark: RESOLVED NEW PROBLEM',
    ]);
    expect(await heads()).toEqual([]);

    // Its repair turns so far (problem_costs, as the trajectories' write leaves them): 3 repairs,
    // 13,600 tokens, 180 s; gpt-4.1's priced at 2 and 8 USD per million: 0.0392, gpt-4o's not.
    const day = T0 - (T0 % (24 * HOUR));
    for (const [model, repairs, input, output, ms] of [
      ['gpt-4.1', 2, 10_000, 2_400, 150_000],
      ['gpt-4o', 1, 1_000, 200, 30_000],
    ] as const)
      await store.sql.run(
        `INSERT INTO problem_costs (service, id, model, day, repairs, repaired, retries, steps, input_tokens,
           output_tokens, duration_ms) VALUES ('shop', ?, ?, ?, ?, 0, 0, 2, ?, ?, ?)`,
        [p!.id, model, day, repairs, input, output, ms],
      );
    // Seen again: regressed_problem fires once, new_problem stays quiet; the message says what it cost.
    await pipeline.ingestSpans([refunds(clock.now, 1)]);
    const back = await round();
    const cost = '3 repairs cost 13,600 tokens and 3 min ($0.0392; 1,200 tokens unpriced)';
    expect(back.map((b) => b.text)).toEqual([
      `Regressed problem in \`shop\`: \`refund_order\`: \`amount\` is missing — 9 calls in 25 h, on \`gpt-4o\` (5), \`gpt-4.1\` (4), seen again 11:04 UTC after it was resolved, first seen 2026-12-01 10:02 UTC; ${cost}`,
    ]);
    const blocks = back[0]!.blocks as { text?: { text: string }; fields?: { text: string }[] }[];
    expect(blocks[1]!.text!.text.split('\n').at(-1)).toBe(cost);
    expect(blocks[2]!.fields!.map((f) => f.text)).toContain(`*Cost*\n${cost}`);
    // The summary every other notifier (webhook, Alertmanager, log) carries says it too.
    const [sentBack] = await store.sql.all("SELECT payload FROM outbox WHERE payload LIKE '%seen again%' LIMIT 1");
    const regressed = JSON.parse(String(sentBack!.payload)) as {
      summary: string;
      details: { problem: { cost: unknown } };
    };
    expect(regressed.summary.endsWith(`; ${cost}`)).toBe(true);
    expect(regressed.details.problem.cost).toEqual({
      repairs: 3,
      inputTokens: 11_000,
      outputTokens: 2_600,
      durationMs: 180_000,
      usd: 0.0392,
      unpricedTokens: 1_200,
    });
    clock.now += 60_000;
    await pipeline.ingestSpans([refunds(clock.now, 1)]);
    expect(await heads()).toEqual([]);

    // Muted: the regression alert ends (one resolved message); the mute ending re-opens it, not as new.
    await changeStatus(store.sql, 'shop', p!.id, 'mute', clock.now, clock.now + HOUR);
    expect(await heads()).toEqual([':white_check_mark: RESOLVED REGRESSED PROBLEM']);
    clock.now += HOUR;
    await lifecycleRound(store.sql, { set: () => undefined }, clock.now, 24 * HOUR);
    expect((await listProblems(store.sql, 'shop')).find((x) => x.id === p!.id)!.status).toBe('open');
    expect(await heads()).toEqual([]);
    // Resolved, then reopened by hand: not new either.
    await changeStatus(store.sql, 'shop', p!.id, 'resolve', clock.now);
    await changeStatus(store.sql, 'shop', p!.id, 'reopen', clock.now);
    expect(await heads()).toEqual([]);
    // A second regression is a new transition: one more message.
    await changeStatus(store.sql, 'shop', p!.id, 'resolve', clock.now);
    clock.now += 60_000;
    await pipeline.ingestSpans([refunds(clock.now, 1)]);
    expect(await heads()).toEqual([':repeat: REGRESSED PROBLEM']);
    expect(slack.received).toHaveLength(7);
  });
});
