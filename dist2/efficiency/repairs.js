/**
 * The repair turns of a trajectory: what the agent spent after a failed call until it made a valid
 * call of the same tool, gave up or the trajectory ended — tokens and wall time, filed under the
 * failure's problem (its signature's hash, set by the problem recorder on the counted call or
 * execution). Pure: the tracker hands over a trace's failures and recoveries and its model steps.
 *
 * Rules:
 * - a failed call (InvalidJson, SchemaMismatch) is repaired by the next call of the same tool that
 *   passes its check (or cannot be checked); an UnknownName by the next such call of any tool; a
 *   failed execution by the next execution of the same tool that succeeds;
 * - failures of the same tool and kind while one is being repaired are retries of that repair, not
 *   repairs of their own (so three failures then a success cost one repair, not three overlapping
 *   ones); the repair is filed under the problem of its first failure;
 * - a repair's steps are the model steps that start at or after the failure (its span's end) and,
 *   when repaired, before the valid call (the end of the span that proposed it); its wall time runs
 *   from the failure to the valid call, else to the trajectory's last span end;
 * - tokens are the steps' input and output tokens, each step counted once (as the trajectory counts them).
 */
const UNKNOWN_TOOL = '_unknown';
export function repairsOf(events, steps, traceEndMs) {
    const ordered = [...events].sort((a, b) => a.timeMs - b.timeMs || Number(a.failed) - Number(b.failed));
    const open = new Map();
    const done = [];
    for (const e of ordered) {
        const key = `${e.kind}\u0000${e.tool}`;
        if (e.failed) {
            if (e.problemId === undefined)
                continue;
            const o = open.get(key);
            if (o)
                o.retries++;
            else
                open.set(key, { e, retries: 0 });
            continue;
        }
        const closes = [key];
        // A valid call of any tool repairs an invented name.
        if (e.kind === 'call')
            closes.push(`call\u0000${UNKNOWN_TOOL}`);
        for (const k of closes) {
            const o = open.get(k);
            if (!o || o.e.timeMs > e.timeMs)
                continue;
            open.delete(k);
            done.push({ ...o, endMs: e.timeMs, repaired: true });
        }
    }
    for (const o of open.values())
        done.push({ ...o, endMs: Math.max(o.e.timeMs, traceEndMs), repaired: false });
    return done.map(({ e, retries, endMs, repaired }) => {
        let n = 0;
        let inputTokens = 0;
        let outputTokens = 0;
        for (const s of steps) {
            if (s.startMs < e.timeMs)
                continue;
            if (repaired && s.startMs >= endMs)
                continue;
            n++;
            inputTokens += s.inputTokens;
            outputTokens += s.outputTokens;
        }
        return {
            service: e.service,
            problemId: e.problemId,
            model: e.model,
            repaired,
            retries,
            steps: n,
            inputTokens,
            outputTokens,
            durationMs: Math.max(0, endMs - e.timeMs),
            endMs,
        };
    });
}
//# sourceMappingURL=repairs.js.map