/** judge_goal_rate: registered in the alerts' rule-kind registry, pure evaluation, and its loader over real runs. */
import { afterEach, describe, expect, it } from 'vitest';
import { evaluateJudgeGoalRate, type JudgeGoalRateParams } from '../../src/judge/alert-kind.js';
import type { VerdictPoint } from '../../src/judge/store.js';
import { verdictJson } from '../fakes/openai.js';
import { judgeEnv, type JudgeEnv } from './setup.js';

const pt = (service: string, reachedGoal: boolean, weight = 1): VerdictPoint => ({
  traceId: 't',
  service,
  runId: 1,
  reachedGoal,
  unnecessaryCalls: 0,
  dangerousCalls: 0,
  weight,
});
const params: JudgeGoalRateParams = { runs: 3, threshold: 0.8, min_verdicts: 4 };

let env: JudgeEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('judge_goal_rate alert kind', () => {
  it('fires per service below the threshold with enough verdicts, and says when the judge is uncalibrated', () => {
    const points = [
      ...[true, false, false, true].map((g) => pt('a', g)),
      ...[true, true, true, true].map((g) => pt('b', g)),
      pt('c', false),
    ];
    const obs = evaluateJudgeGoalRate(params, {
      points,
      calibration: {
        calibrated: false,
        fields: [{ field: 'reached_goal', n: 12, kappa: 0.41, calibrated: false, reason: 'too_few_labels' }],
      },
    });
    const by = Object.fromEntries(obs.map((o) => [o.labels.service, o]));
    expect(by.a).toMatchObject({
      active: true,
      value: 0.5,
      threshold: 0.8,
      details: { calibrated: false, kappa: 0.41 },
    });
    expect(by.a!.summary).toMatch(/reached_goal rate 50(\.0)?% < 80(\.0)?%.*judge uncalibrated \(κ 0\.41, n=12\)/);
    expect(by.b).toMatchObject({ active: false, value: 1 });
    expect(by.c).toMatchObject({ active: false }); // 1 verdict < min_verdicts
    // Weighted: failures oversampled ×10 do not make a healthy service look broken.
    const weighted = evaluateJudgeGoalRate(params, {
      points: [...Array.from({ length: 9 }, () => pt('d', true, 10)), pt('d', false, 1)],
      calibration: { calibrated: true, fields: [] },
    });
    expect(weighted[0]!.value).toBeCloseTo(90 / 91, 10);
    expect(weighted[0]!.active).toBe(false);
  });

  it('is registered with the alerts registry and loads verdicts of the last runs from the judge store', async () => {
    env = await judgeEnv({
      script: (_, req) => ({ content: verdictJson({ reached_goal: !req.raw.includes('[miss') }) }),
    });
    await env.send([{ tag: 'miss-1' }, { tag: 'miss-2' }, { tag: 'hit-1' }]);
    await env.tw.services.judge!.job!.run();
    const kind = env.tw.services.kinds.rules.get('judge_goal_rate')!;
    expect(kind).toBeDefined();
    const p = { runs: 1, threshold: 0.5, min_verdicts: 3 };
    const data = await kind.load!(p as never, { callCounts: async () => [], judge: env.tw.services.judge }, Date.now());
    const [obs] = kind.evaluate(p as never, data as never, Date.now());
    expect(obs).toMatchObject({
      labels: { service: 'support-agent' },
      active: true,
      details: { verdicts: 3, calibrated: false },
    });
    expect(obs!.value).toBeCloseTo(1 / 3, 10);
  });
});
