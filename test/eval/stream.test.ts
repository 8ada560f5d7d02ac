/**
 * Streaming chat completions against a stand-in sending SSE chunks as OpenAI does: deltas
 * assembled (content, tool calls by index, arguments in pieces), usage from the last chunk, the raw
 * chunks recorded; a stream cut off mid-arguments is InvalidJson; 429 before the stream retried.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/eval/report.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
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
const SCRIPT = perCase({
  'Status of ord_1?': call('lookup_order', { order_id: 'ord_1' }),
  'Status of ord_2?': { calls: [{ name: 'lookup_order', arguments: { order_id: 'ord_2' } }], cut: true },
  'Hello there': text('Hi! How can I help you today?'),
  'Busy?': () => (++busy === 1 ? { status: 429, headers: { 'retry-after': '1' } } : text('fine')),
});

let fake: FakeServer;
beforeAll(async () => {
  fake = await startChatCompletions(SCRIPT);
});
afterAll(() => fake.close());

describe('streaming chat completions', () => {
  it('assembles deltas, records the chunks, and a cut stream is InvalidJson', async () => {
    const t = tempDir();
    try {
      const dir = writeSuite(path.join(t.dir, 's'), {
        suite: { dataset_version: 1, max_retries: 1, models: [{ model: 'm', base_url: fake.baseUrl, stream: true }] },
        tools: TOOLS,
        cases: [
          {
            id: 's1',
            prompt: 'Status of ord_1?',
            expected: [{ name: 'lookup_order', arguments: { order_id: 'ord_1' } }],
          },
          {
            id: 's2',
            prompt: 'Status of ord_2?',
            expected: [{ name: 'lookup_order', arguments: { order_id: 'ord_2' } }],
          },
          { id: 's3', prompt: 'Hello there', expected: [] },
          { id: 's4', prompt: 'Busy?', expected: [] },
        ],
      });
      const out = path.join(t.dir, 'p.jsonl');
      const rep = path.join(t.dir, 'r.json');
      const { sleep, waits } = recordedSleep();
      const res = await evalCli(['run', '--suite', dir, '--out', out, '--report', rep], { deps: { sleep } });
      expect(res.code).toBe(0);
      expect(fake.received[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
      const m = (JSON.parse(readFileSync(rep, 'utf8')) as Report).models[0]!;
      const obs = (id: string) => m.cases.find((c) => c.id === id)!.observations[0]!;
      expect(obs('s1').strictPass).toBe(true);
      expect(obs('s2').strictPass).toBe(false);
      expect(obs('s2').problems.join()).toContain('lookup_order: InvalidJson');
      expect(obs('s3').strictPass).toBe(true);
      expect(obs('s4').strictPass).toBe(true);
      expect(waits).toEqual([1000]);
      expect(m.overall.tokens.input).toBe(300); // usage chunks of s1, s3, s4; the cut stream sent none
      const recs = readJsonl(out).filter((r) => r.type === 'result') as {
        caseId: string;
        turns: { response: unknown; outcome: unknown }[];
      }[];
      const s2 = recs.find((r) => r.caseId === 's2')!.turns[0]!;
      expect(s2.response).toMatchObject({ truncated: true });
      expect((s2.response as { chunks: unknown[] }).chunks.length).toBe(3);
      expect(s2.outcome).toMatchObject({
        kind: 'tool_calls',
        calls: [{ name: 'lookup_order', arguments: '{"order_id' }],
      });
      const s3 = recs.find((r) => r.caseId === 's3')!.turns[0]!;
      expect(s3.outcome).toEqual({ kind: 'text', text: 'Hi! How can I help you today?' });
      expect(s3.response).toMatchObject({ truncated: false });
    } finally {
      t.remove();
    }
  });
});
