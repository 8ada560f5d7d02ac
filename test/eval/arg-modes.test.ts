/**
 * The `judge` and `similar` argument match modes end to end: a candidate (chat-completions
 * stand-in), the eval judge (OpenAI-compatible stand-in) and an embeddings endpoint (stand-in).
 * Soft equality settles what it can and nothing is asked for it; similar passes at cosine ≥ the
 * threshold (the suite's, or the case's own) with the hand-worked scores reported; judge follows
 * the judge's verdict; a second scoring pays nothing (both caches); judge and embeddings tokens are
 * reported apart from the candidates'; a suite using similar without an embeddings endpoint is
 * refused; judge without a judge stays pending.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/eval/report.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import { startEmbeddings, type FakeEmbeddings } from '../fakes/embeddings.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { call, perCase, type FakeServer } from '../fakes/scripted.js';
import { evalCli, tempDir, writeSuite } from './helpers.js';

const TOOLS = [
  {
    name: 'search_products',
    description: 'Search the catalogue.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string' }, category: { type: 'string' } },
      required: ['query'],
    },
  },
  {
    name: 'book_table',
    description: 'Book a restaurant table.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, time: { type: 'string' }, people: { type: 'integer' } },
      required: ['city', 'time', 'people'],
    },
  },
];

const CANDIDATE = perCase({
  'Find running shoes for women': call('search_products', { query: 'running shoes for women', category: 'shoes' }),
  'Find a red dress': call('search_products', { query: 'blue dress' }),
  'Find a Red Dress please': call('search_products', { query: 'red  dress' }),
  'A table for two in Prague at 7pm': call('book_table', { city: 'Prague', time: '7pm', people: 2 }),
  'A table for two in Prague at 8pm': call('book_table', { city: 'Brno', time: '20:00', people: 2 }),
});

const CASES = [
  {
    id: 's1',
    prompt: 'Find running shoes for women',
    expected: {
      kind: 'tool',
      name: 'search_products',
      arguments: { query: "women's running shoes", category: 'shoes' },
      match_mode: { query: 'similar' },
    },
  },
  {
    id: 's2',
    prompt: 'Find a red dress',
    expected: {
      kind: 'tool',
      name: 'search_products',
      arguments: { query: 'red dress' },
      match_mode: { query: { similar: 0.5 } },
    },
  },
  {
    id: 's3',
    prompt: 'Find a red dress',
    expected: {
      kind: 'tool',
      name: 'search_products',
      arguments: { query: 'red dress' },
      match_mode: { query: 'similar' },
    },
  },
  {
    id: 's4',
    prompt: 'Find a Red Dress please',
    expected: {
      kind: 'tool',
      name: 'search_products',
      arguments: { query: 'Red Dress' },
      match_mode: { query: 'similar' },
    },
  },
  {
    id: 'j1',
    prompt: 'A table for two in Prague at 7pm',
    expected: {
      kind: 'tool',
      name: 'book_table',
      arguments: { city: 'Prague', time: '19:00', people: 2 },
      match_mode: { time: 'judge' },
    },
  },
  {
    id: 'j2',
    prompt: 'A table for two in Prague at 8pm',
    expected: {
      kind: 'tool',
      name: 'book_table',
      arguments: { city: 'Prague', time: '20:00', people: 2 },
      match_mode: { city: 'judge', time: 'judge' },
    },
  },
];

// Hand-worked: cos(s1) = 0.96·1 = 0.96 ≥ 0.85; cos(s2, s3) = 0.6 (≥ 0.5 passes s2, < 0.85 fails s3).
const VECTORS = {
  "women's running shoes": [1, 0, 0],
  'running shoes for women': [0.96, 0.28, 0],
  'red dress': [0, 1, 0],
  'blue dress': [0, 0.6, 0.8],
};

let candidate: FakeServer;
let judge: FakeOpenAI;
let embed: FakeEmbeddings;

beforeAll(async () => {
  candidate = await startChatCompletions(CANDIDATE);
  judge = await startFakeOpenAI((_n, req) => {
    const user = req.body.messages?.find((m) => m.role === 'user')?.content ?? '';
    const same = user.includes("THE MODEL'S VALUE: 7pm");
    return {
      content: JSON.stringify({ same, reasoning: same ? '7pm is 19:00.' : 'Another city.' }),
      usage: { prompt_tokens: 400, completion_tokens: 25 },
    };
  });
  embed = await startEmbeddings(VECTORS);
});
afterAll(async () => {
  await candidate.close();
  await judge.close();
  await embed.close();
});

const suiteYaml = (extra: Record<string, unknown> = {}) => ({
  dataset_version: 1,
  max_retries: 0,
  models: [{ model: 'gpt-4o-mini', base_url: candidate.baseUrl }],
  judge: { model: 'claude-opus-4', base_url: judge.baseUrl, price_per_million_input_tokens: 10 },
  similarity: { model: 'text-embedding-3-small', base_url: embed.baseUrl, price_per_million_input_tokens: 1000 },
  ...extra,
});

describe('judge and similar argument match modes', () => {
  it('asks only what soft equality cannot settle, reports scores and verdicts, caches both', async () => {
    const t = tempDir();
    try {
      const dir = writeSuite(path.join(t.dir, 's'), { suite: suiteYaml(), tools: TOOLS, cases: CASES });
      const out = path.join(t.dir, 'p.jsonl');
      const rep = path.join(t.dir, 'r.json');
      const j0 = judge.received.length;
      const res = await evalCli(['run', '--suite', dir, '--out', out, '--report', rep]);
      expect(res.err).not.toMatch(/Error/);
      expect(res.code).toBe(0);
      expect(res.out).toContain(
        'argument checks judge 2/3 matched (1 equal, 2 asked, 0 pending), similar 3/4 matched (1 equal, 3 asked, 0 pending)',
      );
      expect(res.out).toContain('embeddings text-embedding-3-small: 4 embedded, 0 cached; 11 tokens');
      const r = JSON.parse(readFileSync(rep, 'utf8')) as Report;
      const m = r.models[0]!;
      const obs = (id: string) => m.cases.find((c) => c.id === id)!.observations[0]!;
      expect(obs('s1').strictPass).toBe(true);
      expect(obs('s1').argumentMatches).toEqual([
        {
          tool: 'search_products',
          key: 'query',
          mode: 'similar',
          expected: "women's running shoes",
          actual: 'running shoes for women',
          status: 'asked',
          match: true,
          score: 0.96,
          threshold: 0.85,
        },
      ]);
      expect(obs('s2').strictPass).toBe(true);
      expect(obs('s2').argumentMatches![0]).toMatchObject({ score: 0.6, threshold: 0.5, match: true });
      expect(obs('s3').strictPass).toBe(false);
      expect(obs('s3').problems.join()).toContain('query: expected "red dress" (similar: similarity 0.6 < 0.85)');
      // Soft equality settled s4: nothing embedded for it.
      expect(obs('s4').argumentMatches![0]).toMatchObject({ status: 'equal', match: true });
      expect(obs('j1').strictPass).toBe(true);
      expect(obs('j1').argumentMatches![0]).toMatchObject({
        key: 'time',
        status: 'asked',
        match: true,
        reasoning: '7pm is 19:00.',
      });
      expect(obs('j2').strictPass).toBe(false);
      // city Brno ≠ Prague by the judge; time 20:00 = 20:00 settled without asking.
      expect(obs('j2').argumentMatches!.map((x) => [x.key, x.status, x.match])).toEqual([
        ['city', 'asked', false],
        ['time', 'equal', true],
      ]);
      expect(m.argumentMatches).toEqual({
        similar: { checks: 4, equal: 1, asked: 3, matched: 2, pending: 0, invalid: 0 },
        judge: { checks: 3, equal: 1, asked: 2, matched: 1, pending: 0, invalid: 0 },
      });
      expect(judge.received.length - j0).toBe(2);
      // Every text once, one batch: the four distinct texts.
      expect(embed.received.flat().sort()).toEqual(Object.keys(VECTORS).sort());
      expect(r.argumentMatch).toMatchObject({
        judge: {
          model: 'claude-opus-4',
          questions: 2,
          cached: 0,
          asked: 2,
          inputTokens: 800,
          outputTokens: 50,
          cost: 0.008,
        },
        similar: {
          model: 'text-embedding-3-small',
          texts: 4,
          cached: 0,
          embedded: 4,
          errors: 0,
          inputTokens: 11,
          cost: 0.011,
        },
      });
      // The candidates' tokens do not include them.
      expect(m.overall.tokens.input).toBe(600);

      // Scoring again pays nothing: both caches answer.
      const e0 = embed.received.length;
      const j1 = judge.received.length;
      const rep2 = path.join(t.dir, 'r2.json');
      const again = await evalCli(['score', '--suite', dir, '--pred', out, '--report', rep2]);
      expect(again.code).toBe(0);
      expect(embed.received.length).toBe(e0);
      expect(judge.received.length).toBe(j1);
      const r2 = JSON.parse(readFileSync(rep2, 'utf8')) as Report;
      expect(r2.argumentMatch).toMatchObject({ judge: { cached: 2, asked: 0 }, similar: { cached: 4, embedded: 0 } });
      expect(r2.models[0]!.argumentMatches).toEqual(m.argumentMatches);
    } finally {
      t.remove();
    }
  });

  it('an embeddings endpoint that fails leaves the checks pending, never passed', async () => {
    const t = tempDir();
    try {
      const dir = writeSuite(path.join(t.dir, 's'), {
        suite: suiteYaml({ similarity: { model: 'e', base_url: embed.baseUrl, max_retries: 0 } }),
        tools: TOOLS,
        cases: CASES.slice(0, 1),
      });
      embed.failNext.push(500);
      const rep = path.join(t.dir, 'r.json');
      const res = await evalCli(['run', '--suite', dir, '--out', path.join(t.dir, 'p.jsonl'), '--report', rep]);
      expect(res.err).toContain('embeddings: ');
      const r = JSON.parse(readFileSync(rep, 'utf8')) as Report;
      const o = r.models[0]!.cases[0]!.observations[0]!;
      expect(o.strictPass).toBe(false);
      expect(o.argumentMatches![0]).toMatchObject({ status: 'pending', match: null });
      expect(o.problems.join()).toContain('no similar verdict yet');
      expect(r.argumentMatch?.similar).toMatchObject({ embedded: 0, errors: 2 });
    } finally {
      t.remove();
    }
  });

  it('similar without an embeddings endpoint is refused; judge without a judge stays pending', async () => {
    const t = tempDir();
    try {
      const { similarity: _s, judge: _j, ...bare } = suiteYaml();
      const noSim = writeSuite(path.join(t.dir, 'a'), { suite: bare, tools: TOOLS, cases: CASES.slice(0, 1) });
      const refused = await evalCli(['run', '--suite', noSim, '--out', path.join(t.dir, 'a.jsonl')]);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain('case "s1" matches an argument by similar, but suite.yaml has no similarity:');
      const noJudge = writeSuite(path.join(t.dir, 'b'), { suite: bare, tools: TOOLS, cases: CASES.slice(4, 5) });
      const rep = path.join(t.dir, 'b.json');
      const res = await evalCli(['run', '--suite', noJudge, '--out', path.join(t.dir, 'b.jsonl'), '--report', rep]);
      expect(res.err).toContain('some arguments match by judge, but suite.yaml has no judge');
      const o = (JSON.parse(readFileSync(rep, 'utf8')) as Report).models[0]!.cases[0]!.observations[0]!;
      expect(o).toMatchObject({
        strictPass: false,
        argumentMatches: [{ key: 'time', status: 'pending', match: null }],
      });
    } finally {
      t.remove();
    }
  });
});
