/**
 * GET /api/judge for a service-restricted reader: the rates and the trend (loop1's second trend) are
 * over that reader's services' verdicts only; the run list and calibration (every team's) withheld.
 * Through judgeSummary with a Reader, as the route builds it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { judgeSummary } from '../../src/queries/judge.js';
import type { Reader } from '../../src/queries/reader.js';
import { EVERY_SERVICE, servicesView } from '../../src/util/service-view.js';
import { verdictJson } from '../fakes/openai.js';
import { judgeEnv, type JudgeEnv } from '../judge/setup.js';

let env: JudgeEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('judge summary through a restricted Reader', () => {
  it('trend and rates of the reader’s services only; runs and calibration withheld', async () => {
    env = await judgeEnv({
      script: (_, req) => ({ content: verdictJson({ unnecessary_calls: req.raw.includes('[team-a-') ? 0 : 4 }) }),
    });
    await env.send([
      { tag: 'team-a-1', service: 'checkout' },
      { tag: 'team-a-2', service: 'checkout-eu' },
      { tag: 'team-b-1', service: 'billing' },
    ]);
    const run = await env.tw.services.judge.job!.run();
    expect(run.judged).toBe(3);
    const s = env.tw.services;
    const reader = (view: Reader['view']) => ({
      store: s.store,
      now: s.now,
      metrics: s.metrics,
      alerting: s.alerting,
      judge: s.judge,
      feedback: s.feedback.store,
      coverage: s.coverage,
      view,
    });
    const q = { window: '7d', nowMs: Date.now(), runs: 20 };
    const teamA = await judgeSummary(reader(servicesView(['checkout', 'checkout-*'])), q);
    expect(teamA.services.map((x) => x.service).sort()).toEqual(['checkout', 'checkout-eu']);
    expect(teamA.trend).toHaveLength(1);
    expect(teamA.trend[0]).toMatchObject({ runId: run.runId, verdicts: 2 });
    expect(teamA.trend[0]!.unnecessaryCallsPerTrajectory.value).toBe(0);
    expect(teamA.runs).toEqual([]);
    expect(teamA.calibration).toBeNull();

    const all = await judgeSummary(reader(EVERY_SERVICE), q);
    expect(all.trend[0]).toMatchObject({ runId: run.runId, verdicts: 3 });
    expect(all.trend[0]!.unnecessaryCallsPerTrajectory.value).toBeCloseTo(4 / 3, 12);
    expect(all.runs.map((r) => r.id)).toEqual([run.runId]);
  });
});
