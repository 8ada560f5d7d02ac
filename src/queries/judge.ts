/** What the judge has found: sampling, trajectories by status, weighted rates, calibration, runs; one trajectory with its verdicts. */
import { verdictRates } from '../judge/calibration.js';
import { CURRENT_PROMPT_VERSION } from '../judge/prompt-file.js';
import type { Judge } from '../judge/service.js';
import type { VerdictPoint } from '../judge/store.js';
import type { RunRecord } from '../judge/types.js';
import { durationMs } from '../util/duration.js';

/**
 * Per run (newest first, runs that judged something within the window): the weighted reached_goal
 * rate, unnecessary calls per trajectory and agent tokens per success — the judge's trends.
 */
export function judgeTrend(points: readonly VerdictPoint[], runs: readonly RunRecord[]) {
  const byRun = new Map<number, VerdictPoint[]>();
  for (const p of points) byRun.set(p.runId, [...(byRun.get(p.runId) ?? []), p]);
  return runs.flatMap((r) => {
    const pts = byRun.get(r.id);
    if (!pts) return [];
    const rates = verdictRates(pts);
    return [
      {
        runId: r.id,
        startedAt: new Date(r.startedMs).toISOString(),
        verdicts: pts.length,
        reachedGoal: rates.reachedGoal,
        unnecessaryCallsPerTrajectory: rates.unnecessaryCallsPerTrajectory,
        tokensPerSuccess: rates.tokensPerSuccess,
      },
    ];
  });
}

/** What GET /api/judge answers (the built-in page shows a part of it). `window` is a duration ('7d'). */
export async function judgeSummary(judge: Judge, q: { window: string; nowMs: number; runs: number; service?: string }) {
  const windowMs = durationMs(q.window);
  const sinceMs = q.nowMs - windowMs;
  const points = await judge.store.verdictPoints({ sinceMs, ...(q.service ? { service: q.service } : {}) });
  const byService = new Map<string, typeof points>();
  for (const p of points) byService.set(p.service, [...(byService.get(p.service) ?? []), p]);
  const calibration = await judge.calibration();
  const runs = await judge.store.runs(q.runs);
  return {
    enabled: judge.config.enabled,
    model: judge.config.model,
    promptVersion: CURRENT_PROMPT_VERSION,
    sampling: {
      project: judge.config.project,
      sampleRate: judge.config.sampleRate,
      serviceRates: judge.config.serviceRates,
      failedRate: judge.config.failedRate ?? null,
      feedbackRate: judge.config.feedbackRate,
    },
    trajectories: await judge.store.countByStatus(),
    window: q.window,
    since: new Date(sinceMs).toISOString(),
    rates: verdictRates(points),
    services: [...byService].map(([service, ps]) => ({ service, ...verdictRates(ps) })),
    calibration,
    trend: judgeTrend(points, runs),
    runs,
  };
}

/** A stored trajectory with its verdicts and human label; undefined when none is stored. */
export async function trajectoryDetail(judge: Judge, traceId: string) {
  const t = await judge.store.trajectory(traceId);
  return t ? { ...t, ...(await judge.store.judgementsOf(traceId)) } : undefined;
}
