/**
 * Streaming Anthropic Messages through @anthropic-ai/sdk against a stand-in sending Anthropic's SSE
 * events: message_start, ping, content_block_start/delta (text_delta, input_json_delta in pieces)
 * /stop, message_delta, message_stop assembled into the message a non-streamed answer is; the raw
 * events recorded; a stream cut off mid-arguments is InvalidJson (the arguments that arrived, not a
 * partial-JSON guess); an `event: error` (overloaded_error) halfway is the provider's failure and
 * retried; a 429 before the stream waits Retry-After.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/eval/report.js';
import { startAnthropicMessages } from '../fakes/anthropic-messages.js';
import { call, perCase, text, type FakeServer } from '../fakes/scripted.js';
import { evalCli, readJsonl, recordedSleep, tempDir, writeSuite } from './helpers.js';

const TOOLS = [
  {
    name: 'lookup_order',
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string' } },
      required: ['order_id'],
      additionalProperties: false,
    },
  },
];
let busy = 0;
let overloaded = 0;
const SCRIPT = perCase({
  'Status of ord_1?': (req) =>
    req.turn === 0
      ? { calls: [{ name: 'lookup_order', arguments: { order_id: 'ord_1' } }], text: 'Checking.' }
      : text('It shipped.'),
  'Status of ord_2?': { calls: [{ name: 'lookup_order', arguments: { order_id: 'ord_2' } }], cut: true },
  'Status of ord_3?': () =>
    ++overloaded === 1
      ? {
          calls: [{ name: 'lookup_order', arguments: { order_id: 'ord_3' } }],
          streamError: { type: 'overloaded_error', message: 'Overloaded' },
        }
      : call('lookup_order', { order_id: 'ord_3' }),
  'Hello there': text('Hi! How can I help you today?'),
  'Busy?': () => (++busy === 1 ? { status: 429, headers: { 'retry-after': '3' } } : text('fine')),
  'Forbidden?': { refusal: '' },
});

let fake: FakeServer;
beforeAll(async () => {
  fake = await startAnthropicMessages(SCRIPT);
});
afterAll(() => fake.close());

describe('streaming Anthropic Messages', () => {
  it('assembles the events, records them, and a cut stream is InvalidJson', async () => {
    const t = tempDir();
    try {
      const dir = writeSuite(path.join(t.dir, 's'), {
        suite: {
          dataset_version: 1,
          max_retries: 1,
          models: [{ provider: 'anthropic', model: 'claude-x', base_url: fake.baseUrl, stream: true }],
        },
        tools: TOOLS,
        cases: [
          {
            id: 'a1',
            prompt: 'Status of ord_1?',
            expected: { kind: 'tool', name: 'lookup_order', arguments: { order_id: 'ord_1' } },
            tool_results: { lookup_order: { result: { status: 'shipped' } } },
            max_turns: 2,
          },
          {
            id: 'a2',
            prompt: 'Status of ord_2?',
            expected: [{ name: 'lookup_order', arguments: { order_id: 'ord_2' } }],
          },
          {
            id: 'a3',
            prompt: 'Status of ord_3?',
            expected: [{ name: 'lookup_order', arguments: { order_id: 'ord_3' } }],
          },
          { id: 'a4', prompt: 'Hello there', expected: [] },
          { id: 'a5', prompt: 'Busy?', expected: [] },
          { id: 'a6', prompt: 'Forbidden?', expected: [] },
        ],
      });
      const out = path.join(t.dir, 'p.jsonl');
      const rep = path.join(t.dir, 'r.json');
      const { sleep, waits } = recordedSleep();
      const res = await evalCli(['run', '--suite', dir, '--out', out, '--report', rep], {
        env: { EVAL_API_KEY: 'sk-ant-test-key-1' },
        deps: { sleep },
      });
      expect(res.code).toBe(0);
      expect(fake.received[0]!.body).toMatchObject({ stream: true, model: 'claude-x' });
      const m = (JSON.parse(readFileSync(rep, 'utf8')) as Report).models[0]!;
      const obs = (id: string) => m.cases.find((c) => c.id === id)!.observations[0]!;
      expect(obs('a1').strictPass).toBe(true);
      expect(obs('a2').strictPass).toBe(false);
      expect(obs('a2').problems.join()).toContain('lookup_order: InvalidJson');
      expect(obs('a3').strictPass).toBe(true); // the overloaded stream was retried
      expect(obs('a4').strictPass).toBe(true);
      expect(obs('a5').strictPass).toBe(true);
      expect(obs('a6').strictPass).toBe(true);
      // 429 Retry-After 3 s; the overloaded_error event backs off 1 s.
      expect([...waits].sort()).toEqual([1000, 3000]);
      const recs = readJsonl(out).filter((r) => r.type === 'result') as {
        caseId: string;
        turns: { request: Record<string, unknown>; response: unknown; outcome: unknown }[];
      }[];
      const turn = (id: string, i = 0) => recs.find((r) => r.caseId === id)!.turns[i]!;
      expect(turn('a1').outcome).toEqual({
        kind: 'tool_calls',
        calls: [{ id: 'toolu_1_1', name: 'lookup_order', arguments: { order_id: 'ord_1' } }],
        text: 'Checking.',
      });
      expect(turn('a1').response).toMatchObject({ truncated: false });
      const types = (turn('a1').response as { events: { type: string }[] }).events.map((e) => e.type);
      expect(types).toEqual([
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      // The second request carries the streamed call back as a tool_use block with its object input.
      const second = fake.received.filter((r) => r.key === 'Status of ord_1?')[1]!.body;
      expect((second.messages as { content: unknown[] }[])[1]!.content).toEqual([
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_1_1', name: 'lookup_order', input: { order_id: 'ord_1' } },
      ]);
      expect(turn('a2').response).toMatchObject({ truncated: true });
      expect(turn('a2').outcome).toEqual({
        kind: 'tool_calls',
        calls: [{ id: expect.any(String), name: 'lookup_order', arguments: '{"order_id' }],
      });
      expect(turn('a4').outcome).toEqual({ kind: 'text', text: 'Hi! How can I help you today?' });
      expect(turn('a6').outcome).toEqual({ kind: 'refusal', text: null });
      // Usage: input from message_start, output from message_delta.
      expect(m.overall.tokens.input).toBeGreaterThanOrEqual(200 * 5);
    } finally {
      t.remove();
    }
  });

  it('an error event that is not retried is recorded with the events before it', async () => {
    const t = tempDir();
    fake.script = () => ({
      calls: [{ name: 'lookup_order', arguments: { order_id: 'x' } }],
      streamError: { type: 'invalid_request_error', message: 'bad tool input' },
    });
    try {
      const dir = writeSuite(path.join(t.dir, 's'), {
        suite: {
          dataset_version: 1,
          max_retries: 2,
          models: [{ provider: 'anthropic', model: 'claude-x', base_url: fake.baseUrl, stream: true }],
        },
        tools: TOOLS,
        cases: [{ id: 'e1', prompt: 'Anything', expected: [] }],
      });
      const out = path.join(t.dir, 'p.jsonl');
      const before = fake.received.length;
      await evalCli(['run', '--suite', dir, '--out', out], {
        env: { EVAL_API_KEY: 'sk-ant-test-key-1' },
        deps: recordedSleep(),
      });
      expect(fake.received.length - before).toBe(1);
      const rec = readJsonl(out).find((r) => r.type === 'result') as unknown as {
        turns: { outcome: unknown; response: { events: unknown[] } }[];
      };
      expect(rec.turns[0]!.outcome).toMatchObject({ kind: 'provider_error', code: 'rejected' });
      // message_start, content_block_start, two input_json_delta (the SDK drops the ping)
      expect(rec.turns[0]!.response.events.length).toBe(4);
    } finally {
      fake.script = SCRIPT;
      t.remove();
    }
  });
});
