/**
 * The Responses API adapter against a stand-in speaking it: function tools, function_call items
 * back, function_call_output items forward paired by call_id, instructions, tool_choice and
 * max_output_tokens as Responses spells them; broken arguments stay InvalidJson; 429 with
 * Retry-After and 5xx retried; a 400 is a rejected request.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/eval/report.js';
import { startResponses } from '../fakes/responses.js';
import { call, perCase, text, type FakeServer } from '../fakes/scripted.js';
import { evalCli, recordedSleep, tempDir, writeSuite } from './helpers.js';

const TOOLS = [
  {
    name: 'lookup_order',
    description: 'Look up an order.',
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string' } },
      required: ['order_id'],
      additionalProperties: false,
    },
  },
];
let n429 = 0;
const SCRIPT = perCase({
  'Status of ord_1?': (req) => (req.turn === 0 ? call('lookup_order', { order_id: 'ord_1' }) : text('It shipped.')),
  'Status of ord_2?': call('lookup_order', '{"order_id": ord_2'),
  Hello: text('Hi!'),
  'Busy?': () =>
    ++n429 === 1 ? { status: 429, headers: { 'retry-after': '4' } } : n429 === 2 ? { status: 500 } : text('ok'),
  'Bad?': { status: 400, message: 'Invalid schema for function' },
});

let fake: FakeServer;
beforeAll(async () => {
  fake = await startResponses(SCRIPT);
});
afterAll(() => fake.close());

describe('openai-responses adapter', () => {
  it('speaks the Responses protocol end to end', async () => {
    const t = tempDir();
    try {
      const dir = writeSuite(path.join(t.dir, 's'), {
        suite: {
          dataset_version: 1,
          max_tokens: 300,
          tool_choice: ['required'],
          models: [{ provider: 'openai-responses', model: 'gpt-5', base_url: fake.baseUrl }],
        },
        tools: TOOLS,
        system: 'You are a support agent.',
        cases: [
          {
            id: 'r1',
            prompt: 'Status of ord_1?',
            expected: { kind: 'tool', name: 'lookup_order', arguments: { order_id: 'ord_1' } },
            tool_results: { lookup_order: { result: { status: 'shipped' } } },
            max_turns: 2,
          },
          {
            id: 'r2',
            prompt: 'Status of ord_2?',
            expected: [{ name: 'lookup_order', arguments: { order_id: 'ord_2' } }],
          },
          { id: 'r3', prompt: 'Hello', expected: [] },
          { id: 'r4', prompt: 'Busy?', expected: [] },
          { id: 'r5', prompt: 'Bad?', expected: [] },
        ],
      });
      const { sleep, waits } = recordedSleep();
      const rep = path.join(t.dir, 'r.json');
      const res = await evalCli(
        ['run', '--suite', dir, '--out', path.join(t.dir, 'p.jsonl'), '--report', rep, '--variant', 'core'],
        { deps: { sleep } },
      );
      expect(res.code).toBe(0);
      const first = fake.received.find((r) => r.key === 'Status of ord_1?')!.body;
      expect(first).toMatchObject({
        model: 'gpt-5',
        instructions: 'You are a support agent.',
        input: [{ role: 'user', content: 'Status of ord_1?' }],
        tools: [{ type: 'function', name: 'lookup_order', description: 'Look up an order.', strict: false }],
        tool_choice: 'auto',
        max_output_tokens: 300,
        store: false,
      });
      const second = fake.received.filter((r) => r.key === 'Status of ord_1?')[1]!.body;
      const items = second.input as {
        type?: string;
        call_id?: string;
        name?: string;
        arguments?: string;
        output?: string;
      }[];
      expect(items.map((x) => x.type ?? 'message')).toEqual(['message', 'function_call', 'function_call_output']);
      expect(items[1]).toMatchObject({ name: 'lookup_order', arguments: '{"order_id":"ord_1"}' });
      expect(items[2]).toMatchObject({
        call_id: items[1]!.call_id,
        output: '{"ok":true,"result":{"status":"shipped"}}',
      });
      const m = (JSON.parse(readFileSync(rep, 'utf8')) as Report).models[0]!;
      const obs = (id: string) => m.cases.find((c) => c.id === id)!.observations[0]!;
      expect(obs('r1').strictPass).toBe(true);
      expect(obs('r2').problems.join()).toContain('InvalidJson');
      expect(obs('r3').strictPass).toBe(true);
      expect(obs('r4').strictPass).toBe(true);
      expect(waits[0]).toBe(4000);
      expect(obs('r5')).toMatchObject({ status: 'provider_error', errorCode: 'rejected' });
      expect(m.overall.tokens.input).toBeGreaterThan(0);
      // tool_choice required as Responses spells it.
      n429 = 10;
      await evalCli(
        ['run', '--suite', dir, '--out', path.join(t.dir, 'q.jsonl'), '--variant', 'tool_choice:required'],
        { deps: { sleep } },
      );
      expect(fake.received[fake.received.length - 1]!.body.tool_choice).toBe('required');
    } finally {
      t.remove();
    }
  });
});
