/** The judge's jobs: the hourly run, idle candidates completed between runs, and retention. */
import type { Component } from '../jobs/lifecycle.js';
import type { Judge } from './service.js';

export interface JudgeSchedule {
  /** judge.schedule (cron). */
  schedule: string;
  /** How often idle candidates complete between runs (0 = only when a run starts). */
  completeEveryMs: number;
  retentionMs: number;
  now: () => number;
  /** Cuts the judge's requests in flight short (the signal its client was given). */
  interrupt?: () => void;
}

export function judgeComponent(judge: Judge, s: JudgeSchedule): Component {
  return {
    name: 'judge',
    async start(scheduler) {
      const job = judge.job;
      if (!job) return;
      // Before the instance listens: the first run would load its HTTP client on ingest's event loop.
      await job.warm();
      scheduler.every('judge', s.schedule, () => job.run());
      // Idle candidates complete every 10 s, not only when a run starts: a candidate's steps (a fifth of
      // all traces' at the default feedback_rate 0.2, every trace's at 1) are kept for about judge.idle +
      // 10 s, not up to an hour more. Not every minute: a minute's candidates completed in one pass kept a
      // busy instance's core full for seconds (docs/performance-history.md), a tenth of them is a short pass.
      if (s.completeEveryMs > 0) scheduler.interval('judge-complete', s.completeEveryMs, () => job.complete());
      scheduler.every('judge-retention', '23 * * * *', () => judge.store.trajectories.prune(s.now() - s.retentionMs));
    },
    ...(s.interrupt ? { interrupt: s.interrupt } : {}),
  };
}
