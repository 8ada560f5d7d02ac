export function groupCounts(batches) {
    const calls = new Map();
    const execs = new Map();
    const drops = new Map();
    for (const b of batches) {
        for (const r of b.callAggregates) {
            const k = `${r.minute}\u0000${r.source}\u0000${r.service}\u0000${r.model}\u0000${r.tool}\u0000${r.outcome}\u0000${r.reason}`;
            const had = calls.get(k);
            if (had)
                had.count += r.count;
            else
                calls.set(k, { ...r });
        }
        for (const r of b.executionAggregates) {
            const k = `${r.minute}\u0000${r.source}\u0000${r.service}\u0000${r.model}\u0000${r.tool}\u0000${r.status}\u0000${r.callOutcome}`;
            const had = execs.get(k);
            if (had)
                had.count += r.count;
            else
                execs.set(k, { ...r });
        }
        for (const r of b.failureDrops) {
            const k = `${r.minute}\u0000${r.service}\u0000${r.tool}`;
            const had = drops.get(k);
            if (had)
                had.dropped += r.dropped;
            else
                drops.set(k, { ...r });
        }
    }
    return {
        callAggregates: [...calls.values()],
        executionAggregates: [...execs.values()],
        failureDrops: [...drops.values()],
    };
}
//# sourceMappingURL=group-counts.js.map