export function countingComponent(d) {
    return {
        name: 'counting',
        async start(scheduler) {
            // The dedupe memory as the previous process left it.
            const loaded = await d.journal.load(d.ledger, d.steady());
            if (loaded.unreadable > 0) {
                d.log.warn({ unreadable: loaded.unreadable }, 'dedupe journal: unreadable records skipped');
            }
            d.log.debug({ ...loaded }, 'dedupe journal loaded');
            scheduler.interval('dedupe-journal-prune', 1_000, () => d.store.runExclusive('dedupe-journal-prune', () => d.journal.prune()));
        },
        // Held executions and trajectories in flight are counted as they stand (a crash loses them).
        stop: () => d.pipeline
            .drain()
            .catch((err) => d.log.error({ err }, 'shutdown: held executions and trajectories not written')),
    };
}
export function pendingCallsComponent(d) {
    const { pipeline, owner, log } = d;
    const adopt = async (rows) => {
        const restored = pipeline.restorePending(rows);
        if (restored.unreadable.length > 0) {
            // Not counted (this version cannot read them); they stay in the table for inspection.
            const { unreadable } = restored;
            const first = unreadable.slice(0, 5);
            log.warn({ unreadable: unreadable.length, first }, 'pending calls: unreadable rows skipped');
        }
        if (restored.superseded.length > 0)
            await owner.drop(restored.superseded);
        return restored.restored;
    };
    return {
        name: 'pending calls',
        async start(scheduler) {
            await adopt(await owner.start());
            // The shorter of the two graces sets the round (a status grace of 0 holds nothing).
            const graces = Math.min(d.config.executionGraceMs, d.config.statusGraceMs || Number.POSITIVE_INFINITY);
            scheduler.interval('settle-pending-calls', Math.min(1000, Math.max(50, graces / 4)), () => pipeline.settle());
            // Renew this process's lease and take over the waiting calls of processes gone.
            scheduler.interval('pending-calls-lease', owner.renewEveryMs, async () => {
                const n = await adopt(await owner.renew());
                if (n > 0)
                    log.info({ calls: n }, 'pending calls taken over from a process gone');
            });
        },
        // Its waiting calls go to the next process to look (batches still being written are held too).
        stop: () => owner.release().catch((err) => {
            log.warn({ err }, 'pending calls: not released; another process takes them over when the lease ends');
        }),
    };
}
//# sourceMappingURL=components.js.map