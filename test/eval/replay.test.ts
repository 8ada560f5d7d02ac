/**
 * --replay: exported production failures (review: true, no expectation) run reference-free
 * against a candidate — every call through the production checker, the judge where configured,
 * pass^k over repeats — as the `replay` variant, reported apart and never gated.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/eval/report.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai.js';
import { call, perCase, text, type FakeServer } from '../fakes/scripted.js';
import { evalCli, tempDir, writeSuite } from './helpers.js';

const TOOLS = [
  {
    name: 'lookup_order',
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string', pattern: '^ord_[0-9]+$' } },
      required: ['order_id'],
      additionalProperties: false,
    },
  },
];
// As `toolwatch eval export` writes them.
const exported = (id: string, user: string) => ({
  id,
  messages: [{ role: 'user', content: user }],
  tools: TOOLS,
  expected: null,
  review: true,
  trace_id: id.padEnd(32, '0'),
  observed: { outcome: 'SchemaMismatch' },
  tags: ['SchemaMismatch'],
  metadata: { service: 'shop' },
});
const REPLAY = [
  exported('a1', 'Where is order 7281?'),
  exported('b2', 'Where is ord_99?'),
  exported('c3', 'Cancel it'),
];

let n = 0;
const CANDIDATE = perCase({
  // fixed now: a valid call both times
  'Where is order 7281?': call('lookup_order', { order_id: 'ord_7281' }),
  // the same mistake once out of two
  'Where is ord_99?': () =>
    ++n % 2 === 1 ? call('lookup_order', { order_id: '99' }) : call('lookup_order', { order_id: 'ord_99' }),
  'Cancel it': text('Which order should I cancel?'),
});

let candidate: FakeServer;
let judge: FakeOpenAI;
beforeAll(async () => {
  candidate = await startChatCompletions(CANDIDATE);
  judge = await startFakeOpenAI((_n, req) => {
    const user = req.body.messages?.find((m) => m.role === 'user')?.content ?? '';
    // The judge thinks asking back was wrong for c3 and every valid call right.
    const ok = !user.includes('Cancel it');
    return { content: JSON.stringify({ tool_selection_ok: ok, arguments_ok: true, reasoning: 'x' }) };
  });
});
afterAll(async () => {
  await candidate.close();
  await judge.close();
});

describe('eval run --replay', () => {
  it('runs exported failures reference-free: checker alone without a judge, pass^k over repeats, never gated', async () => {
    const t = tempDir();
    try {
      n = 0;
      const dir = writeSuite(path.join(t.dir, 's'), {
        suite: { dataset_version: 1, repeats: 2, models: [{ model: 'm', base_url: candidate.baseUrl }] },
        tools: TOOLS,
        cases: [{ id: 'g1', prompt: 'golden, not run here', expected: [] }],
      });
      const file = path.join(t.dir, 'candidates.jsonl');
      writeFileSync(file, REPLAY.map((c) => JSON.stringify(c)).join('\n'));
      const rep = path.join(t.dir, 'r.json');
      const md = path.join(t.dir, 'r.md');
      const res = await evalCli([
        'run',
        '--suite',
        dir,
        '--replay',
        file,
        '--out',
        path.join(t.dir, 'p.jsonl'),
        '--report',
        rep,
        '--markdown',
        md,
        '--check-gates',
      ]);
      expect(res.code).toBe(0);
      expect(candidate.received.some((r) => r.key === 'golden, not run here')).toBe(false);
      const report = JSON.parse(readFileSync(rep, 'utf8')) as Report;
      expect(report.replay).toMatchObject({ cases: 3 });
      const m = report.models[0]!;
      expect(m.key).toBe('openai/m [replay]');
      expect(m.gates).toEqual([]);
      // a1 passes 2/2, b2 1/2 (SchemaMismatch once), c3 2/2 (no call, nothing wrong by the checker).
      expect(m.overall.strictPassRate).toMatchObject({ numerator: 5, denominator: 6 });
      expect(m.overall.passHatK.map((h) => [h.numerator, h.denominator])).toEqual([
        [2.5, 3],
        [2, 3],
      ]);
      expect(m.cases.find((c) => c.id === 'b2')!.traceId).toBe('b2'.padEnd(32, '0'));
      expect(readFileSync(md, 'utf8')).toContain('### Replay of production failures (3 case(s)');
    } finally {
      t.remove();
    }
  });

  it('with a judge: the checker first, then the judge for what it passed', async () => {
    const t = tempDir();
    try {
      n = 0;
      const dir = writeSuite(path.join(t.dir, 's'), {
        suite: {
          dataset_version: 1,
          repeats: 2,
          models: [{ model: 'm', base_url: candidate.baseUrl }],
          judge: { model: 'claude-opus-4', base_url: judge.baseUrl },
        },
        tools: TOOLS,
        cases: [{ id: 'g1', prompt: 'golden', expected: [] }],
      });
      const file = path.join(t.dir, 'candidates.jsonl');
      writeFileSync(file, REPLAY.map((c) => JSON.stringify(c)).join('\n'));
      const rep = path.join(t.dir, 'r.json');
      const before = judge.received.length;
      const res = await evalCli([
        'run',
        '--suite',
        dir,
        '--replay',
        file,
        '--out',
        path.join(t.dir, 'p.jsonl'),
        '--report',
        rep,
      ]);
      expect(res.code).toBe(0);
      // Distinct questions: a1 (same output twice: asked once), b2's valid answer, c3 (same twice).
      expect(judge.received.length - before).toBe(3);
      const m = (JSON.parse(readFileSync(rep, 'utf8')) as Report).models[0]!;
      expect(m.overall.strictPassRate).toMatchObject({ numerator: 3, denominator: 6 });
      expect(m.judge!.metrics!.decision!.pass).toMatchObject({ numerator: 3, denominator: 6, status: 'uncalibrated' });
    } finally {
      t.remove();
    }
  });
});
