/**
 * The judge in eval, end to end over real sockets: a candidate stand-in (chat completions) and a
 * judge stand-in (OpenAI-compatible, structured output). Two tools are both right for some cases;
 * the deterministic and the judge-based rates are reported side by side with n and κ; verdicts
 * are cached by hash; the judge's tokens are reported apart; a judge that is a candidate is
 * refused; a judge disagreeing with planted labels gives the κ worked out by hand.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calibrateJudge, parseLabels } from '../../src/eval/judge-score.js';
import { checkJudgeAgainst, modelFamily } from '../../src/eval/judge-settings.js';
import type { Report } from '../../src/eval/report.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai.js';
import { call, perCase, text, type FakeServer } from '../fakes/scripted.js';
import { evalCli, recordedSleep, tempDir, writeSuite } from './helpers.js';

const obj = (properties: Record<string, unknown>, required: string[]) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const TOOLS = [
  {
    name: 'web_search',
    description: 'Search the public web.',
    parameters: obj({ query: { type: 'string' } }, ['query']),
  },
  {
    name: 'search_internal_docs',
    description: 'Search the company handbook and internal wiki.',
    parameters: obj({ query: { type: 'string' } }, ['query']),
  },
];

// The cases: two where either search tool is right (r1 with a reference, r2 without), one the
// reference check settles (r3), one the production checker settles (r4: an invented tool), one
// trajectory judged whole (r5).
const CASES = [
  {
    id: 'r1',
    prompt: 'What is our parental leave policy?',
    expected: [{ name: 'web_search', arguments: { query: 'parental leave policy' } }],
    judge: { rubric: 'r1: either search tool may be right' },
  },
  {
    id: 'r2',
    prompt: 'Find the expense limit for hotels',
    expected: { kind: 'judge', rubric: 'r2: internal docs or web both acceptable' },
  },
  {
    id: 'r3',
    prompt: 'Latest Node.js release?',
    expected: [{ name: 'web_search', arguments: { query: 'latest Node.js release' } }],
    judge: { rubric: 'r3: web' },
  },
  { id: 'r4', prompt: 'Who is on call today?', expected: { kind: 'judge', rubric: 'r4: internal docs' } },
  {
    id: 'r5',
    prompt: 'Summarise the travel policy',
    expected_trajectory: { judge: { rubric: 'r5: reach a summary' } },
    tool_results: { search_internal_docs: [{ result: { hits: ['Travel: economy class'] } }] },
  },
];

const CANDIDATE = perCase({
  'What is our parental leave policy?': call('search_internal_docs', { query: 'parental leave policy' }),
  'Find the expense limit for hotels': call('search_internal_docs', { query: 'hotel expense limit' }),
  'Latest Node.js release?': call('web_search', { query: 'latest Node.js release' }),
  'Who is on call today?': call('lookup_roster', { day: 'today' }),
  'Summarise the travel policy': [call('search_internal_docs', { query: 'travel policy' }), text('Economy class.')],
});

const rubricOf = (content: string) => /CASE RUBRIC:\n(\S+):/.exec(content)?.[1] ?? '?';
const decision = (sel: boolean, args = true) =>
  JSON.stringify({ tool_selection_ok: sel, arguments_ok: args, reasoning: 'Checked against the request.' });

let candidate: FakeServer;
let judge: FakeOpenAI;
let judgeVerdicts: Record<string, string> = {};

beforeAll(async () => {
  candidate = await startChatCompletions(CANDIDATE);
  judge = await startFakeOpenAI((_n, req) => {
    const user = req.body.messages?.find((m) => m.role === 'user')?.content ?? '';
    const v = judgeVerdicts[rubricOf(user)];
    return v
      ? { content: v, usage: { prompt_tokens: 300, completion_tokens: 20 } }
      : { status: 400, error: 'no verdict scripted' };
  });
});
afterAll(async () => {
  await candidate.close();
  await judge.close();
});

function suiteYaml(extra: Record<string, unknown> = {}) {
  return {
    dataset_version: 1,
    models: [{ model: 'gpt-4o-mini', base_url: candidate.baseUrl }],
    max_retries: 0,
    gates: { selection_accuracy: null, strict_pass_rate: null, args_accuracy: null },
    judge: { model: 'claude-opus-4', base_url: judge.baseUrl, min_labels: 50, ...extra },
  };
}

describe('eval judge', () => {
  it('reports judge-based and deterministic rates side by side, asks only what the checks cannot answer, caches', async () => {
    const t = tempDir();
    try {
      judgeVerdicts = {
        r1: decision(true),
        r2: decision(true),
        r5: JSON.stringify({ reached_goal: true, unnecessary_calls: 0, dangerous_calls: 0, reasoning: 'Summarised.' }),
      };
      const suite = writeSuite(path.join(t.dir, 's'), { suite: suiteYaml(), tools: TOOLS, cases: CASES });
      const before = judge.received.length;
      const out = path.join(t.dir, 'pred.jsonl');
      const rep = path.join(t.dir, 'report.json');
      const res = await evalCli(['run', '--suite', suite, '--out', out, '--report', rep]);
      expect(res.err).not.toMatch(/Error/);
      expect(res.code).toBe(0);
      // r1, r2, r5 asked; r3 settled by its reference, r4 by the production checker (UnknownName).
      expect(judge.received.length - before).toBe(3);
      const asked = judge.received.slice(before);
      for (const q of asked) {
        expect(q.body.model).toBe('claude-opus-4');
        // The judge always gets the tool definitions.
        expect(q.body.messages?.[1]?.content).toContain('search_internal_docs: Search the company handbook');
      }
      expect(
        asked
          .map((q) => q.body.response_format?.json_schema)
          .map((s) => (s as { name?: string })?.name)
          .sort(),
      ).toEqual(['decision_verdict', 'decision_verdict', 'trajectory_verdict']);
      const report = JSON.parse(readFileSync(rep, 'utf8')) as Report;
      const m = report.models[0]!;
      // Deterministic: r1 and r3 have a reference; r1 chose the other (also right) tool.
      expect(m.overall.selectionAccuracy).toMatchObject({ numerator: 1, denominator: 2 });
      const d = m.judge!.metrics!.decision!;
      // Judge-based over r1 r2 r3 r4: r1 r2 judged ok, r3 decided ok, r4 UnknownName decided not ok.
      expect(d.toolSelection).toMatchObject({
        numerator: 3,
        denominator: 4,
        kappa: null,
        labels: 0,
        status: 'uncalibrated',
      });
      expect(d.pass).toMatchObject({ numerator: 3, denominator: 4, status: 'uncalibrated' });
      expect(m.judge!.metrics!.trajectory!.reachedGoal).toMatchObject({ numerator: 1, denominator: 1 });
      expect(m.judge!.metrics).toMatchObject({ observations: 5, asked: 3, decided: 2, pending: 0 });
      // The judge's tokens apart from the candidate's.
      expect(report.judge!.usage).toMatchObject({
        asked: 3,
        cached: 0,
        inputTokens: 900,
        outputTokens: 60,
        totalTokens: 960,
      });
      expect(m.overall.tokens.total).toBe(6 * 120);
      const r4 = m.cases.find((c) => c.id === 'r4')!;
      expect(r4.observations[0]!.judge).toMatchObject({ status: 'decided', pass: false });
      expect(readFileSync(out, 'utf8')).toContain('"judge":{"provider":"openai","model":"claude-opus-4"');
      expect(res.out).toMatch(/judge selection 75\.0% \(3\/4, κ —, n 0, uncalibrated\)/);

      // Scoring again pays nothing: every verdict comes from the cache.
      const again = judge.received.length;
      const s2 = await evalCli(['score', '--suite', suite, '--pred', out, '--report', rep]);
      expect(s2.code).toBe(0);
      expect(judge.received.length).toBe(again);
      const r2 = JSON.parse(readFileSync(rep, 'utf8')) as Report;
      expect(r2.judge!.usage).toMatchObject({ asked: 0, cached: 3, totalTokens: 0 });
      expect(r2.models[0]!.judge!.metrics!.decision!.toolSelection.numerator).toBe(3);
    } finally {
      t.remove();
    }
  });

  it('a judge rate is never gated while uncalibrated, and is once calibrated', async () => {
    const t = tempDir();
    try {
      judgeVerdicts = { r2: decision(false) };
      const cases = [CASES[1]];
      const yaml = suiteYaml({ min_labels: 1, gates: { decision_pass_rate: 0.9 } });
      const suite = writeSuite(path.join(t.dir, 's'), { suite: yaml, tools: TOOLS, cases });
      const out = path.join(t.dir, 'pred.jsonl');
      const rep = path.join(t.dir, 'r.json');
      const res = await evalCli(['run', '--suite', suite, '--out', out, '--report', rep, '--check-gates']);
      expect(res.code).toBe(0);
      let g = (JSON.parse(readFileSync(rep, 'utf8')) as Report).models[0]!.judge!.gates[0]!;
      expect(g).toMatchObject({ gate: 'decision_pass_rate', status: 'skipped', reason: 'uncalibrated', value: 0 });
      // One agreeing label with min_labels 1: κ is undefined for one item (chance agreement 1), still uncalibrated.
      writeFileSync(
        path.join(suite, 'labels.jsonl'),
        `${JSON.stringify({ case_id: 'r2', model: 'openai/gpt-4o-mini', tool_selection_ok: false, arguments_ok: true })}\n`,
      );
      await evalCli(['score', '--suite', suite, '--pred', out, '--report', rep]);
      const j = (JSON.parse(readFileSync(rep, 'utf8')) as Report).judge!;
      expect(j.calibration.fields.find((f) => f.field === 'tool_selection_ok')).toMatchObject({
        n: 1,
        kappa: null,
        reason: 'undefined_kappa',
      });
      // A calibration file that says the judge is trusted: the gate applies and fails.
      const calFile = path.join(t.dir, 'cal.json');
      writeFileSync(
        calFile,
        JSON.stringify({
          ...j.calibration,
          calibrated: true,
          fields: ['tool_selection_ok', 'arguments_ok'].map((field) => ({
            field,
            n: 60,
            kappa: 0.8,
            agreement: 0.9,
            calibrated: true,
          })),
        }),
      );
      const gated = await evalCli([
        'score',
        '--suite',
        suite,
        '--pred',
        out,
        '--report',
        rep,
        '--calibration',
        calFile,
        '--check-gates',
      ]);
      expect(gated.code).toBe(1);
      g = (JSON.parse(readFileSync(rep, 'utf8')) as Report).models[0]!.judge!.gates[0]!;
      expect(g).toMatchObject({ status: 'failed', kappa: 0.8, labels: 60 });
    } finally {
      t.remove();
    }
  });

  it('calibrate: a judge disagreeing with planted labels gives the κ worked out by hand, uncalibrated', async () => {
    const t = tempDir();
    try {
      // Eight judged decisions. judge: T T T T T F F F; human: T T T F F F F T.
      // p_o = 5/8; p_e = 5/8·4/8 + 3/8·4/8 = 1/2; κ = (5/8 − 1/2) / (1 − 1/2) = 0.25.
      const J = [true, true, true, true, true, false, false, false];
      const H = [true, true, true, false, false, false, false, true];
      const prompts = J.map((_, i) => `Question number ${i}`);
      const cases = prompts.map((p, i) => ({
        id: `k${i}`,
        prompt: p,
        expected: { kind: 'judge', rubric: `k${i}: any search` },
      }));
      judgeVerdicts = Object.fromEntries(J.map((v, i) => [`k${i}`, decision(v)]));
      candidate.script = perCase(Object.fromEntries(prompts.map((p) => [p, call('web_search', { query: p })])));
      const suite = writeSuite(path.join(t.dir, 's'), { suite: suiteYaml({ min_labels: 8 }), tools: TOOLS, cases });
      writeFileSync(
        path.join(suite, 'labels.jsonl'),
        H.map((h, i) => JSON.stringify({ case_id: `k${i}`, model: 'openai/gpt-4o-mini', tool_selection_ok: h })).join(
          '\n',
        ),
      );
      const out = path.join(t.dir, 'pred.jsonl');
      const rep = path.join(t.dir, 'r.json');
      await evalCli(['run', '--suite', suite, '--out', out, '--report', rep]);
      const cal = await evalCli(['calibrate', '--suite', suite, '--pred', out, '--out', path.join(t.dir, 'cal.json')]);
      expect(cal.code).toBe(1);
      expect(cal.out).toContain('tool_selection_ok: κ 0.250, n 8, agreement 62.5% — uncalibrated (low_kappa)');
      expect(cal.out).toContain('judge tokens 0 (0 asked, 8 cached)');
      const report = JSON.parse(readFileSync(rep, 'utf8')) as Report;
      expect(report.models[0]!.judge!.metrics!.decision!.toolSelection).toMatchObject({
        numerator: 5,
        denominator: 8,
        kappa: 0.25,
        labels: 8,
        status: 'uncalibrated',
      });
      const md = await evalCli([
        'score',
        '--suite',
        suite,
        '--pred',
        out,
        '--markdown',
        path.join(t.dir, 'r.md'),
        '--junit',
        path.join(t.dir, 'r.xml'),
      ]);
      expect(md.code).toBe(0);
      expect(readFileSync(path.join(t.dir, 'r.md'), 'utf8')).toMatch(
        /\| openai\/gpt-4o-mini \| 62\.5% \(5\/8\) κ 0\.25 n 8 uncalibrated/,
      );
      expect(readFileSync(path.join(t.dir, 'r.xml'), 'utf8')).toMatch(
        /name="judge.toolSelection" value="0\.625 \(5\/8\) kappa=0\.25 n=8 uncalibrated"/,
      );
    } finally {
      candidate.script = CANDIDATE;
      t.remove();
    }
  });

  it('the judge stand-in answers 429 with Retry-After and 5xx: the client waits as told and retries', async () => {
    const t = tempDir();
    try {
      let n = 0;
      const prev = judge.script;
      judge.script = () => {
        n++;
        if (n === 1) return { status: 429, headers: { 'retry-after': '2' }, error: 'slow down' };
        if (n === 2) return { status: 503, error: 'overloaded' };
        return { content: decision(true) };
      };
      const { sleep, waits } = recordedSleep();
      const suite = writeSuite(path.join(t.dir, 's'), { suite: suiteYaml(), tools: TOOLS, cases: [CASES[1]] });
      const rep = path.join(t.dir, 'r.json');
      const res = await evalCli(['run', '--suite', suite, '--out', path.join(t.dir, 'p.jsonl'), '--report', rep], {
        deps: { sleep },
      });
      judge.script = prev;
      expect(res.code).toBe(0);
      expect(waits[0]).toBe(2000);
      expect(waits.length).toBe(2);
      expect((JSON.parse(readFileSync(rep, 'utf8')) as Report).judge!.usage).toMatchObject({ asked: 1, errors: 0 });
    } finally {
      t.remove();
    }
  });

  it('refuses a judge that is one of the candidates and warns of one of the same family', async () => {
    const t = tempDir();
    try {
      const suite = writeSuite(path.join(t.dir, 's'), {
        suite: suiteYaml({ model: 'openai/gpt-4o-mini' }),
        tools: TOOLS,
        cases: [CASES[1]],
      });
      const before = candidate.received.length;
      const res = await evalCli(['run', '--suite', suite, '--out', path.join(t.dir, 'p.jsonl')]);
      expect(res.code).toBe(2);
      expect(res.err).toContain('self-preference');
      expect(candidate.received.length).toBe(before);
    } finally {
      t.remove();
    }
    expect(checkJudgeAgainst('gpt-4.1', [{ label: 'a', model: 'gpt-4o-mini' }])).toMatchObject({
      refused: [],
      warnings: [expect.stringContaining('same family (openai)')],
    });
    expect(checkJudgeAgainst('anthropic/claude-opus-4', [{ label: 'a', model: 'claude-opus-4' }]).refused).toHaveLength(
      1,
    );
    expect(modelFamily('moonshotai/kimi-k3')).toBe('moonshot');
    expect(modelFamily('o3-mini')).toBe('openai');
    expect(modelFamily('some-new-model')).toBeUndefined();
  });

  it('labels are checked line by line; κ by field counts only observations the judge answered', () => {
    const bad = parseLabels(
      '{"case_id":"a"}\n{"case_id":"a","model":"m","colour":1}\n{"case_id":"a","model":"m","reached_goal":"yes"}\n',
      'l',
    );
    expect(bad.problems).toEqual([
      "l:1: a label needs case_id and model (the candidate's label)",
      'l:2: colour: unknown key (fields: tool_selection_ok, arguments_ok, reached_goal, unnecessary_calls, dangerous_calls)',
      'l:3: reached_goal: must be true or false',
    ]);
    const { labels } = parseLabels(
      '{"case_id":"a","model":"m","dangerous_calls":2}\n{"case_id":"b","model":"m","dangerous_calls":0}\n',
      'l',
    );
    const slot = (status: 'asked' | 'decided', v: boolean) => ({
      scope: 'trajectory' as const,
      status,
      pass: true,
      fields: { dangerous_calls: v },
    });
    const cal = calibrateJudge(
      labels,
      [
        { model: 'm', variant: 'core', caseId: 'a', repeat: 1, slot: slot('asked', true) },
        { model: 'm', variant: 'core', caseId: 'b', repeat: 1, slot: slot('decided', false) },
      ],
      { judgeModel: 'j', promptVersion: 'v1', minKappa: 0.6, minLabels: 1 },
    );
    expect(cal.fields).toEqual([
      { field: 'dangerous_calls', n: 1, kappa: null, agreement: 1, calibrated: false, reason: 'undefined_kappa' },
    ]);
  });
});
