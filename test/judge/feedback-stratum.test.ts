/**
 * The judge and user feedback: a negative-feedback stratum (judge.feedback_rate) weighted like
 * failed_rate so rates stay unbiased — probabilities and weights checked by hand — what late
 * feedback can and cannot do, the second trend (unnecessary calls per trajectory, agent tokens per
 * success, with their intervals) on /api/judge, and judge_unnecessary_calls firing and resolving
 * through the real evaluator.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { verdictRates, weightedRatio } from '../../src/judge/calibration.js';
import { inclusionProbability, maxProbability, samplePosition } from '../../src/judge/sampler.js';
import type { VerdictPoint } from '../../src/judge/store.js';
import { verdictJson } from '../fakes/openai.js';
import { judgeEnv, type JudgeEnv } from './setup.js';

let env: JudgeEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const get = async (url: string) => (await env!.tw.app.inject({ method: 'GET', url })).json();
const postFeedback = async (body: unknown) =>
  env!.tw.app.inject({ method: 'POST', url: '/api/feedback', payload: body as object });

describe('the feedback stratum (pure)', () => {
  it('takes the largest rate of the strata a trajectory is in', () => {
    const policy = { sampleRate: 0.02, serviceRates: { checkout: 0.1 }, failedRate: 0.25, feedbackRate: 1 };
    expect(inclusionProbability(policy, 'search', false, false)).toBe(0.02);
    expect(inclusionProbability(policy, 'search', true, false)).toBe(0.25);
    expect(inclusionProbability(policy, 'search', false, true)).toBe(1);
    expect(inclusionProbability(policy, 'checkout', true, true)).toBe(1);
    expect(inclusionProbability({ ...policy, feedbackRate: 0.5 }, 'checkout', false, true)).toBe(0.5);
    expect(maxProbability(policy)).toBe(1);
    expect(maxProbability({ sampleRate: 0.02, serviceRates: {}, failedRate: 0.25 })).toBe(0.25);
  });

  it('weights by 1/p: rates, unnecessary calls per trajectory and tokens per success, worked by hand', () => {
    // Strata: base p = 0.2 (w 5), failed p = 0.5 (w 2), negative feedback p = 1 (w 1).
    const pt = (
      weight: number,
      reachedGoal: boolean,
      unnecessaryCalls: number,
      agentTokens: number | null,
    ): VerdictPoint => ({
      traceId: 't',
      service: 's',
      runId: 1,
      reachedGoal,
      unnecessaryCalls,
      dangerousCalls: 0,
      weight,
      agentTokens,
    });
    const points = [
      pt(5, true, 0, 400),
      pt(5, true, 1, 600),
      pt(2, false, 2, 1000),
      pt(1, false, 4, 2000),
      pt(1, true, 0, null),
    ];
    const r = verdictRates(points);
    // Σw = 5 + 5 + 2 + 1 + 1 = 14; reached: 5 + 5 + 1 = 11 → 11/14 (the unweighted 3/5 would overstate failures).
    expect(r.reachedGoal.rate).toBeCloseTo(11 / 14, 12);
    // Unnecessary calls: (5·0 + 5·1 + 2·2 + 1·4 + 1·0) / 14 = 13/14.
    expect(r.unnecessaryCallsPerTrajectory.value).toBeCloseTo(13 / 14, 12);
    // Tokens per success over the four verdicts with tokens: (5·400 + 5·600 + 2·1000 + 1·2000) / (5 + 5) = 900.
    expect(r.tokensPerSuccess).toMatchObject({ value: 900, n: 4 });
    // Its interval by hand: z_i = w_i (y_i − 900 x_i): 5·(400−900) = −2500, 5·(600−900) = −1500, 2·1000 = 2000, 1·2000 = 2000.
    // SE = √(4/3 · (2500² + 1500² + 2000² + 2000²)) / 10 = √(4/3 · 16 500 000) / 10 = 469.04…
    const se = Math.sqrt((4 / 3) * 16_500_000) / 10;
    expect(900 - 1.96 * se).toBeLessThan(0);
    expect(r.tokensPerSuccess.ci95!.low).toBe(0); // clamped: tokens are never negative
    expect(r.tokensPerSuccess.ci95!.high).toBeCloseTo(900 + 1.96 * se, 9);
    // A mean is the ratio with x = 1; with one item there is no interval, with no success no value.
    expect(weightedRatio([{ w: 1, y: 3, x: 1 }])).toEqual({ value: 3, ci95: null, n: 1 });
    expect(
      weightedRatio([
        { w: 1, y: 3, x: 0 },
        { w: 2, y: 1, x: 0 },
      ]),
    ).toEqual({ value: null, ci95: null, n: 2 });
    const small = weightedRatio([
      { w: 1, y: 2, x: 1 },
      { w: 1, y: 0, x: 1 },
      { w: 2, y: 1, x: 1 },
    ]);
    // R = 4/4 = 1; w(y − R) / Σw = .25, −.25, 0 → SE² = 3/2 · 0.125 = 0.1875; the low end 1 − 1.96·0.433 = 0.151.
    expect(small.value).toBe(1);
    expect(small.ci95!.low).toBeCloseTo(1 - 1.96 * Math.sqrt(0.1875), 12);
    expect(small.ci95!.high).toBeCloseTo(1 + 1.96 * Math.sqrt(0.1875), 12);
  });
});

describe('the feedback stratum end to end', () => {
  it('judges every trace with negative feedback given before it completed, at probability 1, and weights the rest as sampled', async () => {
    env = await judgeEnv({
      judge: { sample_rate: 0.2, failed_rate: 0.5, feedback_rate: 1 },
      script: (_, req) => {
        const unhappy = req.raw.includes('[neg-');
        return { content: verdictJson({ reached_goal: !unhappy, unnecessary_calls: unhappy ? 2 : 0 }) };
      },
    });
    const plain = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'];
    const failing = ['f0', 'f1', 'f2', 'f3'];
    const negative = ['neg-0', 'neg-1', 'neg-2', 'neg-3'];
    const ids = await env.send([
      ...plain.map((tag) => ({ tag })),
      ...failing.map((tag) => ({ tag, failing: true })),
      ...negative.map((tag) => ({ tag })),
    ]);
    const idOf = (tag: string) => ids[[...plain, ...failing, ...negative].indexOf(tag)]!;
    // Feedback within judge.idle of the trace's last span (here: before the run that completes it) keeps it.
    expect((await postFeedback(negative.map((tag) => ({ trace_id: idOf(tag), value: 'down' })))).statusCode).toBe(200);

    const summary = await env.tw.services.judge!.job!.run();
    const u = (tag: string) => samplePosition('default', idOf(tag));
    const p = (tag: string) => (negative.includes(tag) ? 1 : failing.includes(tag) ? 0.5 : 0.2);
    const sampled = [...plain, ...failing, ...negative].filter((tag) => u(tag) < p(tag));
    expect(summary).toMatchObject({
      judged: sampled.length,
      finalized: { pending: sampled.length, dropped: 14 - sampled.length },
    });
    for (const tag of negative) expect(sampled).toContain(tag);

    // Each verdict records its probability and weight 1/p.
    for (const tag of sampled) {
      const t = await get(`/api/trajectories/${idOf(tag)}`);
      expect([tag, t.probability, t.verdicts[0].probability, t.verdicts[0].weight]).toEqual([
        tag,
        p(tag),
        p(tag),
        1 / p(tag),
      ]);
      expect(t.verdicts[0]).toMatchObject({ agentTokens: 490, agentToolCalls: failing.includes(tag) ? 2 : 1 });
    }
    // The rates are Hájek estimates over those weights.
    const sw = sampled.reduce((a, tag) => a + 1 / p(tag), 0);
    const happy = sampled.filter((tag) => !negative.includes(tag)).reduce((a, tag) => a + 1 / p(tag), 0);
    const j = await get('/api/judge');
    expect(j.sampling).toMatchObject({ sampleRate: 0.2, failedRate: 0.5, feedbackRate: 1 });
    expect(j.rates.reachedGoal.rate).toBeCloseTo(happy / sw, 12);
    expect(j.rates.unnecessaryCallsPerTrajectory.value).toBeCloseTo((2 * negative.length) / sw, 12);
    // Trace ids are random: in about 1.6 % of runs no plain or failing trace is sampled, and with no
    // success there is no cost per success (null), not an infinite one.
    if (happy === 0) expect(j.rates.tokensPerSuccess.value).toBeNull();
    else expect(j.rates.tokensPerSuccess.value).toBeCloseTo((490 * sw) / happy, 9);
    expect(j.rates.tokensPerSuccess.n).toBe(sampled.length);
    expect(j.trend).toHaveLength(1);
    expect(j.trend[0]).toMatchObject({ runId: summary.runId, verdicts: sampled.length });
    expect(j.trend[0].unnecessaryCallsPerTrajectory.value).toBeCloseTo((2 * negative.length) / sw, 12);

    // Later feedback cannot bring back a trace whose steps were dropped, nor re-weight one judged at its base rate.
    const dropped = plain.find((tag) => u(tag) >= 0.2);
    const kept = plain.find((tag) => u(tag) < 0.2);
    await postFeedback([
      ...(dropped ? [{ trace_id: idOf(dropped), value: -1 }] : []),
      ...(kept ? [{ trace_id: idOf(kept), value: -1 }] : []),
    ]);
    const again = await env.tw.services.judge!.job!.run();
    expect(again).toMatchObject({ judged: 0, finalized: { pending: 0, dropped: 0 } });
    if (dropped)
      expect((await env.tw.app.inject({ method: 'GET', url: `/api/trajectories/${idOf(dropped)}` })).statusCode).toBe(
        404,
      );
    if (kept)
      expect(
        (await get(`/api/trajectories/${idOf(kept)}`)).verdicts.map((v: { probability: number }) => v.probability),
      ).toEqual([0.2]);
  });
});

describe('candidates between runs', () => {
  it('with feedback_rate 1 every trace’s steps are written at ingest, and the minute job completes them without a run', async () => {
    env = await judgeEnv({
      // No base sample: only the feedback stratum (at 1) makes traces candidates.
      judge: { sample_rate: 0, feedback_rate: 1, idle: '2s' },
      services: { judgeCompleteEveryMs: 50 },
    });
    const sql = env.tw.services.store.sql;
    const count = async (query: string, traceId: string) =>
      Number((await sql.all<{ n: unknown }>(query, [traceId]))[0]!.n);
    // Steps are keyed by their trajectory's id (migration 019), found here by its trace id.
    const rows = (table: 'judge_trajectories' | 'judge_steps', traceId: string) =>
      count(
        table === 'judge_steps'
          ? 'SELECT COUNT(*) AS n FROM judge_steps s JOIN judge_trajectories t ON t.id = s.trajectory WHERE t.trace_id = ?'
          : 'SELECT COUNT(*) AS n FROM judge_trajectories WHERE trace_id = ?',
        traceId,
      );
    const ids = await env.send([{ tag: 'plain-a' }, { tag: 'plain-b' }, { tag: 'unhappy' }]);
    // The cost the README states: one header row and one step row per model or tool span, for every trace.
    for (const id of ids) {
      expect(await rows('judge_trajectories', id)).toBe(1);
      expect(await rows('judge_steps', id)).toBe(3);
    }
    expect((await postFeedback({ trace_id: ids[2], value: 'thumbs-down' })).statusCode).toBe(200);
    const status = async (id: string) =>
      String(
        (await sql.all<{ status: unknown }>('SELECT status FROM judge_trajectories WHERE trace_id = ?', [id]))[0]!
          .status,
      );
    const deadline = Date.now() + 8000;
    while ((await status(ids[0]!)) === 'open' || (await status(ids[2]!)) === 'open') {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect([await status(ids[0]!), await status(ids[1]!), await status(ids[2]!)]).toEqual([
      'dropped',
      'dropped',
      'pending',
    ]);
    expect([await rows('judge_steps', ids[0]!), await rows('judge_steps', ids[1]!)]).toEqual([0, 0]);
    expect(await rows('judge_steps', ids[2]!)).toBe(3);
    expect(env.fake.received).toHaveLength(0);
  });
});

describe('judge_unnecessary_calls', () => {
  it('fires when the weighted mean over the last runs is above the threshold, notes an uncalibrated judge, and resolves (real evaluator)', async () => {
    env = await judgeEnv({
      alerts: {
        rules: [{ name: 'wasteful-agent', kind: 'judge_unnecessary_calls', runs: 1, threshold: 1, min_verdicts: 3 }],
      },
      script: (_, req) => ({ content: verdictJson({ unnecessary_calls: req.raw.includes('[waste-') ? 3 : 0 }) }),
    });
    await env.send([{ tag: 'waste-1' }, { tag: 'waste-2' }, { tag: 'waste-3' }]);
    await env.tw.services.judge!.job!.run();
    const first = await env.tw.services.alerting.evaluate();
    expect(first!.sent).toEqual([
      { rule: 'wasteful-agent', labels: { service: 'support-agent' }, status: 'firing', repeat: false },
    ]);
    const [state] = await env.tw.services.alerting.store.states();
    expect(state).toMatchObject({ state: 'firing', value: 3, threshold: 1 });
    expect(state!.summary).toBe(
      'judge: 3 unnecessary calls per trajectory > 1 (3 verdicts, last 1 runs, 95% CI 3–3) — judge uncalibrated (κ n/a, n=0)',
    );

    await env.send([{ tag: 'lean-1' }, { tag: 'lean-2' }, { tag: 'lean-3' }]);
    await env.tw.services.judge!.job!.run();
    const second = await env.tw.services.alerting.evaluate();
    expect(second!.sent).toEqual([
      { rule: 'wasteful-agent', labels: { service: 'support-agent' }, status: 'resolved', repeat: false },
    ]);
  });

  it('is registered beside judge_goal_rate and checks its keys in the config phase', async () => {
    env = await judgeEnv();
    const kinds = env.tw.services.kinds.rules.list();
    expect(kinds).toEqual(
      expect.arrayContaining(['judge_goal_rate', 'judge_unnecessary_calls', 'negative_feedback_rate']),
    );
    const { loadConfig } = await import('../../src/config.js');
    expect(() =>
      loadConfig({
        cwd: '/tmp',
        overrides: { alerts: { rules: [{ name: 'x', kind: 'judge_unnecessary_calls', threshold: -1, runs: 0 }] } },
      }),
    ).toThrow(
      /alerts\.rules\.0\.runs: must be >= 1[\s\S]*alerts\.rules\.0\.threshold: must be >= 0|alerts\.rules\.0\.threshold: must be >= 0[\s\S]*alerts\.rules\.0\.runs: must be >= 1/,
    );
  });
});
