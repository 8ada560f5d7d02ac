/**
 * tool_choice variants: suite.yaml `tool_choice: [required, none, {name}]` runs each as its own
 * variant, sent in each protocol's words (chat completions and Messages stand-ins), forced on the
 * first request of a conversation only, reported apart from the auto comparison and never gated.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/eval/report.js';
import { startAnthropicMessages } from '../fakes/anthropic-messages.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import { call, perCase, text, type FakeServer } from '../fakes/scripted.js';
import { evalCli, tempDir, writeSuite } from './helpers.js';

const TOOLS = [
  {
    name: 'lookup_order',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  },
  { name: 'search_docs', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
];
const CASES = [
  {
    id: 't1',
    prompt: 'Status of ord_7281?',
    expected: [{ name: 'lookup_order', arguments: { order_id: 'ord_7281' } }],
  },
  {
    id: 't2',
    prompt: 'Refund policy?',
    expected: { kind: 'tool', name: 'search_docs' },
    tool_results: { search_docs: { result: 'Refunds within 30 days.' } },
    max_turns: 2,
  },
];
const SCRIPT = perCase({
  'Status of ord_7281?': call('lookup_order', { order_id: 'ord_7281' }),
  'Refund policy?': (req) => (req.turn === 0 ? call('search_docs', { q: 'refund' }) : text('Within 30 days.')),
});

let chat: FakeServer;
let messages: FakeServer;
beforeAll(async () => {
  chat = await startChatCompletions(SCRIPT);
  messages = await startAnthropicMessages(SCRIPT);
});
afterAll(async () => {
  await chat.close();
  await messages.close();
});

describe('tool_choice variants', () => {
  it('sends each choice in the protocol’s words, first turn only, reported apart and not gated', async () => {
    const t = tempDir();
    try {
      const dir = writeSuite(path.join(t.dir, 's'), {
        suite: {
          dataset_version: 1,
          models: [
            { model: 'm1', base_url: chat.baseUrl },
            { provider: 'anthropic', model: 'm2', base_url: messages.baseUrl },
          ],
          tool_choice: ['required', 'none', { name: 'lookup_order' }],
        },
        tools: TOOLS,
        cases: CASES,
      });
      const rep = path.join(t.dir, 'r.json');
      const res = await evalCli(['run', '--suite', dir, '--out', path.join(t.dir, 'p.jsonl'), '--report', rep]);
      expect(res.code).toBe(0);
      const choices = (f: FakeServer, key: string) =>
        f.received.filter((r) => r.key === key).map((r) => r.body.tool_choice);
      // t1: one request per variant (auto, required, none, named), in order.
      expect(choices(chat, 'Status of ord_7281?')).toEqual([
        'auto',
        'required',
        'none',
        { type: 'function', function: { name: 'lookup_order' } },
      ]);
      expect(choices(messages, 'Status of ord_7281?')).toEqual([
        { type: 'auto' },
        { type: 'any' },
        { type: 'none' },
        { type: 'tool', name: 'lookup_order' },
      ]);
      // t2 is multi-turn: the forced choice on the first request, auto after.
      expect(choices(chat, 'Refund policy?')).toEqual([
        'auto',
        'auto',
        'required',
        'auto',
        'none',
        'auto',
        { type: 'function', function: { name: 'lookup_order' } },
        'auto',
      ]);
      const report = JSON.parse(readFileSync(rep, 'utf8')) as Report;
      expect(report.models.map((m) => m.key)).toEqual([
        'anthropic/m2',
        'anthropic/m2 [tool_choice:lookup_order]',
        'anthropic/m2 [tool_choice:none]',
        'anthropic/m2 [tool_choice:required]',
        'openai/m1',
        'openai/m1 [tool_choice:lookup_order]',
        'openai/m1 [tool_choice:none]',
        'openai/m1 [tool_choice:required]',
      ]);
      for (const m of report.models) expect(m.gates.length > 0).toBe(m.variant === 'core');
      const only = await evalCli([
        'run',
        '--suite',
        dir,
        '--out',
        path.join(t.dir, 'q.jsonl'),
        '--variant',
        'tool_choice:none',
        '--model',
        'm1',
      ]);
      expect(only.code).toBe(0);
      expect(only.err).toContain('1 variant(s)');
      const bad = await evalCli([
        'run',
        '--suite',
        dir,
        '--out',
        path.join(t.dir, 'q.jsonl'),
        '--variant',
        'tool_choice:nope',
      ]);
      expect(bad.code).toBe(2);
    } finally {
      t.remove();
    }
  });

  it('a named choice must be a suite tool', async () => {
    const t = tempDir();
    try {
      const dir = writeSuite(path.join(t.dir, 's'), {
        suite: { dataset_version: 1, tool_choice: [{ name: 'refund' }] },
        tools: TOOLS,
        cases: CASES,
      });
      const res = await evalCli(['run', '--suite', dir, '--out', path.join(t.dir, 'p.jsonl'), '--model', 'x']);
      expect(res.code).toBe(2);
      expect(res.err).toContain('tool_choice: "refund" is not in tools.json');
    } finally {
      t.remove();
    }
  });
});
