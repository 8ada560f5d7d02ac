/**
 * Multi-turn cases: canned tool results and errors, the INVALID_ARGUMENTS answer to a call the
 * production checker rejects (so the model can repair its call), expected trajectories with agentevals'
 * modes, max_turns — over both protocols.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultRecord } from '../../src/eval/records.js';
import type { Report } from '../../src/eval/report.js';
import { startAnthropicMessages } from '../fakes/anthropic-messages.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import { call, perCase, text, type FakeServer, type Script } from '../fakes/scripted.js';
import { evalCli, r, readJsonl, REPO, tempDir, writeSuite } from './helpers.js';

const TOOLS = JSON.parse(
  readFileSync(path.join(REPO, 'config/eval/support/tools.compatibility.json'), 'utf8'),
) as unknown;

const CASES = [
  {
    id: 'repair-01',
    prompt: 'Where is order 104821?',
    expected: { kind: 'tool', name: 'lookup_order', arguments: { order_id: 'ORD-104821' } },
    tool_results: { lookup_order: { result: { status: 'shipped' } } },
    max_turns: 3,
    tags: ['recovery'],
  },
  {
    id: 'tool-error-01',
    prompt: 'Status of ORD-555555?',
    expected: { kind: 'tool', name: 'lookup_order', arguments: { order_id: 'ORD-555555' } },
    tool_results: {
      lookup_order: [{ error: { code: 'NOT_FOUND', message: 'no such order' } }, { result: { status: 'delivered' } }],
    },
    tags: ['recovery'],
  },
  {
    id: 'traj-01',
    messages: [{ role: 'user', content: 'My email is sam@example.test; where is my latest order?' }],
    expected_trajectory: {
      calls: [
        { name: 'search_orders', arguments: { email: 'sam@example.test' } },
        { name: 'lookup_order', arguments: { order_id: 'ORD-104821' } },
      ],
      match: 'strict',
      tool_args_match_mode: 'superset',
    },
    tool_results: {
      search_orders: { result: { orders: [{ order_id: 'ORD-104821' }] } },
      lookup_order: { result: { status: 'shipped' } },
    },
  },
  {
    id: 'traj-02',
    prompt: 'Look up ORD-104821 first, then my orders (sam@example.test).',
    expected_trajectory: [
      { name: 'lookup_order', arguments: { order_id: 'ORD-104821' } },
      { name: 'search_orders', arguments: { email: 'sam@example.test' } },
    ],
  },
  {
    id: 'loop-01',
    prompt: 'Keep searching sam@example.test',
    expected_trajectory: {
      calls: [{ name: 'search_orders', arguments: {} }],
      match: 'superset',
      tool_args_match_mode: 'ignore',
    },
    max_turns: 2,
  },
];

const script: Script = perCase({
  'Where is order 104821?': (q) =>
    [
      call('lookup_order', { order_id: '104821' }),
      call('lookup_order', { order_id: 'ORD-104821' }),
      text('It has shipped.'),
    ][q.turn]!,
  'Status of ORD-555555?': (q) =>
    q.turn === 0 ? call('lookup_order', { order_id: 'ORD-555555' }) : text('I could not find that order.'),
  'My email is sam@example.test; where is my latest order?': (q) =>
    [
      call('search_orders', { email: 'sam@example.test', limit: 1 }),
      call('lookup_order', { order_id: 'ORD-104821' }),
      text('Shipped.'),
    ][q.turn]!,
  // Reversed order: fails the strict trajectory.
  'Look up ORD-104821 first, then my orders (sam@example.test).': (q) =>
    [
      call('search_orders', { email: 'sam@example.test' }),
      call('lookup_order', { order_id: 'ORD-104821' }),
      text('Done.'),
    ][q.turn]!,
  'Keep searching sam@example.test': () => call('search_orders', { email: 'sam@example.test' }),
});

describe('multi-turn cases over chat completions', () => {
  let fake: FakeServer;
  let tmp: ReturnType<typeof tempDir>;
  let report: Report;
  let results: ResultRecord[];

  beforeAll(async () => {
    fake = await startChatCompletions(script);
    tmp = tempDir();
    const suite = writeSuite(path.join(tmp.dir, 'recovery'), {
      suite: { dataset_version: 'r1', max_turns: 4 },
      tools: TOOLS,
      cases: CASES,
      system: 'You are a support assistant.',
    });
    const res = await evalCli(
      [
        'run',
        '--suite',
        suite,
        '--model',
        'm',
        '--base-url',
        fake.baseUrl,
        '--out',
        'out.jsonl',
        '--report',
        'report.json',
      ],
      { cwd: tmp.dir },
    );
    expect(res.code, res.err).toBe(0);
    report = JSON.parse(readFileSync(path.join(tmp.dir, 'report.json'), 'utf8')) as Report;
    results = readJsonl(path.join(tmp.dir, 'out.jsonl')).slice(1) as ResultRecord[];
  });
  afterAll(async () => {
    await fake.close();
    tmp.remove();
  });

  it('answers a call the checker rejects with INVALID_ARGUMENTS and its errors, then the canned result', () => {
    const reqs = fake.received.filter((q) => q.key === 'Where is order 104821?');
    expect(reqs).toHaveLength(3);
    const msgs = reqs[1]!.body.messages as {
      role: string;
      content: string | null;
      tool_call_id?: string;
      tool_calls?: { id: string }[];
    }[];
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(msgs[3]!.tool_call_id).toBe(msgs[2]!.tool_calls![0]!.id);
    const answer = JSON.parse(msgs[3]!.content!) as {
      ok: boolean;
      error: { code: string; details: { instancePath: string; keyword: string }[] };
    };
    expect(answer).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENTS', details: [{ instancePath: '/order_id', keyword: 'pattern' }] },
    });
    const third = reqs[2]!.body.messages as { role: string; content: string }[];
    expect(JSON.parse(third[5]!.content)).toEqual({ ok: true, result: { status: 'shipped' } });
    const rec = results.find((x) => x.caseId === 'repair-01')!;
    expect(rec.turns).toHaveLength(3);
    expect(rec.turns[0]!.toolResults![0]).toMatchObject({ name: 'lookup_order', isError: true });
    expect(rec.outcome).toEqual({ kind: 'text', text: 'It has shipped.' });
  });

  it('hands out canned results in order and stops at max_turns', () => {
    const tool = fake.received.filter((q) => q.key === 'Status of ORD-555555?');
    expect(tool).toHaveLength(2);
    const answer = (tool[1]!.body.messages as { content: string }[])[3]!.content;
    expect(JSON.parse(answer)).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'no such order' } });
    expect(fake.received.filter((q) => q.key === 'Keep searching sam@example.test')).toHaveLength(2);
  });

  it('scores recovery, trajectories and the first decision by hand', () => {
    const cases = Object.fromEntries(report.models[0]!.cases.map((c) => [c.id, c]));
    // repair-01: the first call was wrong (selection right, arguments wrong), repaired on turn 2 → passes, recovered.
    expect(cases['repair-01']!.observations[0]).toMatchObject({
      decision: 'lookup_order',
      strictPass: true,
      exactMatch: false,
    });
    // tool-error-01: the right call, the tool failed, the model gave up: passes (the call was right), not recovered.
    expect(cases['tool-error-01']!.observations[0]).toMatchObject({ strictPass: true });
    expect(cases['traj-01']!.pass).toBe(true);
    expect(cases['traj-02']!.observations[0]!.problems).toEqual([
      'trajectory (strict) expected lookup_order → search_orders, got search_orders → lookup_order',
    ]);
    expect(cases['loop-01']!.pass).toBe(true);
    const o = report.models[0]!.overall;
    expect(o.recoveryRate).toEqual(r(1, 2));
    expect(o.trajectoryPassRate).toEqual(r(2, 3));
    expect(o.strictPassRate).toEqual(r(4, 5));
    // Single-decision rates cover the two non-trajectory cases only.
    expect(o.selectionAccuracy).toEqual(r(2, 2));
    expect(o.argsAccuracy).toEqual(r(1, 2));
    // Calls: repair 2 (one SchemaMismatch), tool-error 1, traj-01 2, traj-02 2, loop 2.
    expect(o.validity).toMatchObject({ calls: 9, valid: 8, SchemaMismatch: 1 });
    expect(report.models[0]!.byTag.recovery!.recoveryRate).toEqual(r(1, 2));
  });
});

describe('multi-turn cases over the Messages protocol', () => {
  it('carries tool_use / tool_result (is_error) blocks and canonical history', async () => {
    const fake = await startAnthropicMessages(
      perCase({
        'Where is order 104821?': script,
        // Two assistant turns are history already: the model's first answer is turn 2.
        'And where is order 104821 now?': (q) =>
          q.turn === 2 ? call('lookup_order', { order_id: 'ORD-104821' }) : text('Shipped.'),
      }),
    );
    const tmp = tempDir();
    try {
      const history = {
        id: 'history-01',
        messages: [
          { role: 'user', content: 'Hi, I am sam@example.test' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_a',
                type: 'function',
                function: { name: 'search_orders', arguments: '{"email":"sam@example.test"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_a', content: '{"orders":[]}' },
          { role: 'assistant', content: 'You have no orders.' },
          { role: 'user', content: 'And where is order 104821 now?' },
        ],
        expected: { kind: 'tool', name: 'lookup_order', arguments: { order_id: 'ORD-104821' } },
        tool_results: { lookup_order: { result: { status: 'shipped' } } },
        max_turns: 3,
      };
      const suite = writeSuite(path.join(tmp.dir, 's'), {
        suite: { dataset_version: 'r1' },
        tools: TOOLS,
        cases: [CASES[0]!, history],
      });
      const res = await evalCli(
        [
          'run',
          '--suite',
          suite,
          '--provider',
          'anthropic',
          '--model',
          'c',
          '--base-url',
          `${fake.baseUrl}/v1`,
          '--out',
          'o.jsonl',
          '--report',
          'r.json',
        ],
        { cwd: tmp.dir },
      );
      expect(res.code, res.err).toBe(0);
      const second = fake.received[1]!.body as { messages: { role: string; content: Record<string, unknown>[] }[] };
      expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(second.messages[1]!.content[0]).toMatchObject({
        type: 'tool_use',
        name: 'lookup_order',
        input: { order_id: '104821' },
      });
      expect(second.messages[2]!.content[0]).toMatchObject({
        type: 'tool_result',
        tool_use_id: second.messages[1]!.content[0]!.id,
        is_error: true,
      });
      // History: the assistant's call with a string argument became a tool_use with an object input.
      const hist = fake.received.find((q) => q.key === 'And where is order 104821 now?')!.body as {
        messages: { role: string; content: Record<string, unknown>[] }[];
      };
      expect(hist.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      expect(hist.messages[1]!.content[0]).toMatchObject({
        type: 'tool_use',
        id: 'call_a',
        input: { email: 'sam@example.test' },
      });
      expect(hist.messages[2]!.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_a' });
      const rep = JSON.parse(readFileSync(path.join(tmp.dir, 'r.json'), 'utf8')) as Report;
      expect(rep.models[0]!.overall.recoveryRate).toEqual(r(1, 1));
      expect(rep.models[0]!.overall.strictPassRate).toEqual(r(2, 2));
    } finally {
      await fake.close();
      tmp.remove();
    }
  });
});
