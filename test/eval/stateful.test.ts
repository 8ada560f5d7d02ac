/**
 * Stateful fake tools (tools.mjs in node:vm) with outcome-state checks: two different orders of
 * calls reach the same end state and both pass; a wrong order fails; a reference trajectory gives
 * the expected state; the sandbox has no imports, no clock and a time limit.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/eval/report.js';
import { loadStatefulTools } from '../../src/eval/stateful.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import { call, perCase, text, type FakeServer } from '../fakes/scripted.js';
import { evalCli, tempDir, writeSuite } from './helpers.js';

const TOOLS_MJS = `
export function verify_identity(args, state) {
  return { result: { verified: true }, state: { ...state, verified: [...state.verified, args.customer_id] } };
}
export function lookup_subscription(args, state) {
  const sub = state.subscriptions[args.customer_id];
  return sub ? { result: sub, state } : { error: { code: 'NOT_FOUND' }, state };
}
export const cancel_subscription = (args, state) => {
  if (!state.verified.includes(args.customer_id)) return { error: { code: 'NOT_VERIFIED' }, state };
  const subs = { ...state.subscriptions, [args.customer_id]: { ...state.subscriptions[args.customer_id], status: 'cancelled' } };
  return { result: { ok: true }, state: { ...state, subscriptions: subs } };
};
`;
const id = { type: 'object', properties: { customer_id: { type: 'string' } }, required: ['customer_id'] };
const TOOLS = ['verify_identity', 'lookup_subscription', 'cancel_subscription'].map((name) => ({
  name,
  parameters: id,
}));
const INITIAL = { verified: [], subscriptions: { c1: { plan: 'pro', status: 'active' } } };
const END = { verified: ['c1'], subscriptions: { c1: { plan: 'pro', status: 'cancelled' } } };
const c1 = { customer_id: 'c1' };

const turns =
  (...replies: ReturnType<typeof call>[]) =>
  (req: { turn: number }) =>
    replies[req.turn] ?? text('Done.');
const SCRIPT = perCase({
  'Cancel my subscription (A)': turns(
    call('verify_identity', c1),
    call('lookup_subscription', c1),
    call('cancel_subscription', c1),
  ),
  'Cancel my subscription (B)': turns(
    call('lookup_subscription', c1),
    call('verify_identity', c1),
    call('cancel_subscription', c1),
  ),
  'Cancel my subscription (C)': turns(call('cancel_subscription', c1), call('verify_identity', c1)),
});

let fake: FakeServer;
beforeAll(async () => {
  fake = await startChatCompletions(SCRIPT);
});
afterAll(() => fake.close());

describe('stateful tools', () => {
  it('any order that reaches the end state passes; a wrong order fails', async () => {
    const t = tempDir();
    try {
      const dir = writeSuite(path.join(t.dir, 's'), {
        suite: { dataset_version: 1, models: [{ model: 'm', base_url: fake.baseUrl }], max_turns: 5 },
        tools: TOOLS,
        cases: [
          { id: 'A', prompt: 'Cancel my subscription (A)', initial_state: INITIAL, expected_state: END },
          {
            id: 'B',
            prompt: 'Cancel my subscription (B)',
            initial_state: INITIAL,
            reference_trajectory: [
              { name: 'verify_identity', arguments: c1 },
              { name: 'cancel_subscription', arguments: c1 },
            ],
          },
          { id: 'C', prompt: 'Cancel my subscription (C)', initial_state: INITIAL, expected_state: END },
        ],
      });
      writeFileSync(path.join(dir, 'tools.mjs'), TOOLS_MJS);
      const rep = path.join(t.dir, 'r.json');
      const res = await evalCli(['run', '--suite', dir, '--out', path.join(t.dir, 'p.jsonl'), '--report', rep]);
      expect(res.code).toBe(0);
      const m = (JSON.parse(readFileSync(rep, 'utf8')) as Report).models[0]!;
      const pass = Object.fromEntries(m.cases.map((c) => [c.id, c.pass]));
      expect(pass).toEqual({ A: true, B: true, C: false });
      expect(m.overall.trajectoryPassRate).toMatchObject({ numerator: 2, denominator: 3 });
      expect(m.cases.find((c) => c.id === 'C')!.observations[0]!.problems[0]).toContain('"status":"active"');
      // The model was told what the fake tool said: C's cancel came back NOT_VERIFIED.
      const cReqs = fake.received.filter((r) => r.key === 'Cancel my subscription (C)');
      expect(JSON.stringify(cReqs[1]!.body.messages)).toContain('NOT_VERIFIED');
    } finally {
      t.remove();
    }
  });

  it('the sandbox: no imports, no clock, no randomness, a time limit; bad suites are refused', async () => {
    expect(() =>
      loadStatefulTools(
        't.mjs',
        "import fs from 'node:fs';\nexport function a(x, s) { return { result: 1, state: s }; }",
      ),
    ).toThrow(/imports are not allowed/);
    const tools = loadStatefulTools(
      't.mjs',
      'export function clock(a, s) { return { result: typeof Date, state: s }; }\nexport function spin(a, s) { for (;;) {} }\nexport function rnd(a, s) { return { result: Math.random(), state: s }; }\nexport function bad(a, s) { return 7; }',
    );
    expect(tools.call('clock', {}, {})).toEqual({ result: 'undefined', state: {} });
    expect(() => tools.call('spin', {}, {})).toThrow(/took longer than 1000 ms/);
    expect(() => tools.call('rnd', {}, {})).toThrow(/no randomness/);
    expect(() => tools.call('bad', {}, {})).toThrow(/must return \{result, state\}/);
    const t = tempDir();
    try {
      const dir = writeSuite(path.join(t.dir, 's'), {
        suite: { dataset_version: 1 },
        tools: TOOLS,
        cases: [{ id: 'A', prompt: 'x', initial_state: INITIAL, expected_state: END }],
      });
      const res = await evalCli(['run', '--suite', dir, '--out', path.join(t.dir, 'p.jsonl'), '--model', 'm']);
      expect(res.code).toBe(2);
      expect(res.err).toContain("initial_state needs the suite's tools.mjs");
    } finally {
      t.remove();
    }
  });
});
