/**
 * Per-model params and --param in every request body and the manifest, the max_tokens warning,
 * and --check-params against an OpenRouter stand-in (models endpoint with supported_parameters,
 * errors included): a model that would silently ignore a parameter is refused before anything runs.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paramsFromFlags } from '../../src/eval/params.js';
import { type FakeOpenRouter, startOpenRouter } from '../fakes/openrouter.js';
import { call, perCase } from '../fakes/scripted.js';
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
const CASES = [
  {
    id: 'o1',
    prompt: 'Status of ord_7281?',
    expected: [{ name: 'lookup_order', arguments: { order_id: 'ord_7281' } }],
  },
];
const ALL = ['tools', 'tool_choice', 'temperature', 'reasoning', 'include_reasoning', 'seed', 'max_tokens'];

let or: FakeOpenRouter;
beforeAll(async () => {
  or = await startOpenRouter(perCase({ 'Status of ord_7281?': call('lookup_order', { order_id: 'ord_7281' }) }), [
    { id: 'anthropic/claude-opus-5', supported_parameters: ALL },
    { id: 'openai/gpt-5.6-sol', supported_parameters: ALL.filter((p) => p !== 'temperature') },
    { id: 'moonshotai/kimi-k3', supported_parameters: ['tools', 'temperature', 'seed', 'reasoning'] },
  ]);
});
afterAll(() => or.close());

const suite = (dir: string, models: unknown[], extra: Record<string, unknown> = {}) =>
  writeSuite(dir, { suite: { dataset_version: 1, models, max_retries: 2, ...extra }, tools: TOOLS, cases: CASES });

describe('model params', () => {
  it('suite params and --param reach every request body and the manifest; max_tokens is warned', async () => {
    const t = tempDir();
    try {
      const dir = suite(path.join(t.dir, 's'), [
        {
          model: 'anthropic/claude-opus-5',
          base_url: or.baseUrl,
          params: { reasoning: { effort: 'low' }, temperature: 0.2 },
        },
      ]);
      const out = path.join(t.dir, 'p.jsonl');
      const before = or.received.length;
      const res = await evalCli([
        'run',
        '--suite',
        dir,
        '--out',
        out,
        '--param',
        'provider.require_parameters=true',
        '--param',
        'provider.order=["deepinfra"]',
        '--param',
        'seed=7',
        '--param',
        'max_tokens=512',
      ]);
      expect(res.code).toBe(0);
      const body = or.received[before]!.body;
      expect(body).toMatchObject({
        reasoning: { effort: 'low' },
        temperature: 0.2,
        seed: 7,
        max_tokens: 512,
        provider: { require_parameters: true, order: ['deepinfra'] },
        tool_choice: 'auto',
      });
      expect(res.err).toContain('max_tokens set — an answer cut off mid-call is InvalidJson');
      const [run, result] = readJsonl(out) as unknown as [
        { models: { params?: unknown }[] },
        { turns: { request: unknown }[] },
      ];
      expect(run.models[0]!.params).toEqual({
        reasoning: { effort: 'low' },
        temperature: 0.2,
        provider: { require_parameters: true, order: ['deepinfra'] },
        seed: 7,
        max_tokens: 512,
      });
      expect(result.turns[0]!.request).toMatchObject({ seed: 7, provider: { require_parameters: true } });
    } finally {
      t.remove();
    }
  });

  it('refuses params that toolwatch sets itself, and malformed --param', async () => {
    expect(paramsFromFlags(['tools=[]', 'oops']).problems).toEqual([
      '--param "oops": must be key=value (dots for nested keys)',
      '--param.tools: set by toolwatch itself (tool_choice variants: see docs/eval.md), not a param',
    ]);
    const t = tempDir();
    try {
      const dir = suite(path.join(t.dir, 's'), [{ model: 'x', base_url: or.baseUrl, params: { messages: [] } }]);
      const res = await evalCli(['run', '--suite', dir, '--out', path.join(t.dir, 'p.jsonl')]);
      expect(res.code).toBe(2);
      expect(res.err).toContain('models[0].params.messages: set by toolwatch itself');
    } finally {
      t.remove();
    }
  });
});

describe('--check-params', () => {
  it('runs a model that supports every parameter set; refuses one that would ignore one, before any request', async () => {
    const t = tempDir();
    try {
      const models = [
        {
          model: 'anthropic/claude-opus-5',
          base_url: or.baseUrl,
          params: { reasoning: { effort: 'low' }, provider: { require_parameters: true } },
        },
      ];
      const ok = await evalCli([
        'run',
        '--suite',
        suite(path.join(t.dir, 'a'), models, { temperature: 0 }),
        '--out',
        path.join(t.dir, 'a.jsonl'),
        '--check-params',
      ]);
      expect(ok.code).toBe(0);
      expect(ok.err).toContain(
        'check-params openai/anthropic/claude-opus-5: supported — tools, tool_choice, temperature, reasoning',
      );
      const before = or.received.length;
      const bad = await evalCli([
        'run',
        '--suite',
        suite(
          path.join(t.dir, 'b'),
          [
            ...models,
            { model: 'openai/gpt-5.6-sol', base_url: or.baseUrl },
            { model: 'moonshotai/kimi-k3', base_url: or.baseUrl },
            { model: 'nobody/none', base_url: or.baseUrl },
          ],
          { temperature: 0 },
        ),
        '--out',
        path.join(t.dir, 'b.jsonl'),
        '--check-params',
      ]);
      expect(bad.code).toBe(2);
      expect(bad.err).toContain('openai/openai/gpt-5.6-sol: does not support temperature');
      expect(bad.err).toContain('openai/moonshotai/kimi-k3: does not support tool_choice');
      expect(bad.err).toContain('nobody/none is not listed');
      expect(or.received.length).toBe(before);
    } finally {
      t.remove();
    }
  });

  it('waits out a 429 with Retry-After and a 5xx; gives up (refuses) when the endpoint keeps failing; skips a list without supported_parameters', async () => {
    const t = tempDir();
    try {
      const models = [{ model: 'anthropic/claude-opus-5', base_url: or.baseUrl }];
      const { sleep, waits } = recordedSleep();
      const start = or.modelsRequests;
      or.modelsScript = (k) => {
        const n = k - start;
        return n === 1 ? { status: 429, headers: { 'retry-after': '3' } } : n === 2 ? { status: 502 } : 'list';
      };
      const ok = await evalCli(
        [
          'run',
          '--suite',
          suite(path.join(t.dir, 'a'), models),
          '--out',
          path.join(t.dir, 'a.jsonl'),
          '--check-params',
        ],
        { deps: { sleep } },
      );
      expect(ok.code).toBe(0);
      expect(or.modelsRequests - start).toBe(3);
      expect(waits.slice(0, 2)).toEqual([3000, 2000]); // Retry-After, then backoff 1 s × 2^1
      or.modelsScript = () => ({ status: 503 });
      const down = await evalCli(
        [
          'run',
          '--suite',
          suite(path.join(t.dir, 'b'), models),
          '--out',
          path.join(t.dir, 'b.jsonl'),
          '--check-params',
        ],
        { deps: { sleep } },
      );
      expect(down.code).toBe(2);
      expect(down.err).toContain('HTTP 503 (could not check)');
      or.modelsScript = () => 'list';
      const saved = or.models;
      or.models = [{ id: 'anthropic/claude-opus-5' }];
      const skipped = await evalCli([
        'run',
        '--suite',
        suite(path.join(t.dir, 'c'), models),
        '--out',
        path.join(t.dir, 'c.jsonl'),
        '--check-params',
      ]);
      or.models = saved;
      expect(skipped.code).toBe(0);
      expect(skipped.err).toMatch(/skipped \(.*\/models lists no supported_parameters\)/);
    } finally {
      or.modelsScript = () => 'list';
      t.remove();
    }
  });
});
