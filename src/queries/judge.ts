/** What the judge has found: sampling, trajectories by status, weighted rates, calibration, runs; one trajectory with its verdicts. */
import { verdictRates } from '../judge/calibration.js';
import { CURRENT_PROMPT_VERSION } from '../judge/prompt-file.js';
import type { Judge } from '../judge/service.js';
import { durationMs } from '../util/duration.js';

/** What GET /api/judge answers (the built-in page shows a part of it). `window` is a duration ('7d'). */
export async function judgeSummary(judge: Judge, q: { window: string; nowMs: number; runs: number; service?: string }) {
  const windowMs = durationMs(q.window);
  const sinceMs = q.nowMs - windowMs;
  const points = await judge.store.verdictPoints({ sinceMs, ...(q.service ? { service: q.service } : {}) });
  const byService = new Map<string, typeof points>();
  for (const p of points) byService.set(p.service, [...(byService.get(p.service) ?? []), p]);
  const calibration = await judge.calibration();
  return {
    enabled: judge.config.enabled,
    model: judge.config.model,
    promptVersion: CURRENT_PROMPT_VERSION,
    sampling: {
      project: judge.config.project,
      sampleRate: judge.config.sampleRate,
      serviceRates: judge.config.serviceRates,
      failedRate: judge.config.failedRate ?? null,
    },
    trajectories: await judge.store.countByStatus(),
    window: q.window,
    since: new Date(sinceMs).toISOString(),
    rates: verdictRates(points),
    services: [...byService].map(([service, ps]) => ({ service, ...verdictRates(ps) })),
    calibration,
    runs: await judge.store.runs(q.runs),
  };
}

/** A stored trajectory with its verdicts and human label; undefined when none is stored. */
export async function trajectoryDetail(judge: Judge, traceId: string) {
  const t = await judge.store.trajectory(traceId);
  return t ? { ...t, ...(await judge.store.judgementsOf(traceId)) } : undefined;
}
