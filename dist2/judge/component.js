export function judgeComponent(judge, s) {
    return {
        name: 'judge',
        start(scheduler) {
            const job = judge.job;
            if (!job)
                return;
            scheduler.every('judge', s.schedule, () => job.run());
            // Idle candidates complete every minute, not only when a run starts: a candidate's steps (every
            // trace's, with feedback_rate 1) are kept for about judge.idle + 1 minute, not up to an hour more.
            if (s.completeEveryMs > 0)
                scheduler.interval('judge-complete', s.completeEveryMs, () => job.complete());
            scheduler.every('judge-retention', '23 * * * *', () => judge.store.trajectories.prune(s.now() - s.retentionMs));
        },
        ...(s.interrupt ? { interrupt: s.interrupt } : {}),
    };
}
//# sourceMappingURL=component.js.map