import { OTHER_PROBLEM } from './store.js';
const DAY = 86_400_000;
/** The repair rows of completed trajectories; undefined when none had a repair. */
export function repairExtension(done) {
    const sums = new Map();
    for (const t of done) {
        if (!t.repairs)
            continue;
        for (const r of t.repairs) {
            const day = r.endMs - (((r.endMs % DAY) + DAY) % DAY);
            const key = `${r.service}\u0000${r.problemId}\u0000${r.model}\u0000${day}`;
            let s = sums.get(key);
            if (!s) {
                s = { service: r.service, id: r.problemId, model: r.model, day, ...zero() };
                sums.set(key, s);
            }
            s.repairs++;
            if (r.repaired)
                s.repaired++;
            s.retries += r.retries;
            s.steps += r.steps;
            s.inputTokens += r.inputTokens;
            s.outputTokens += r.outputTokens;
            s.durationMs += Math.round(r.durationMs);
        }
    }
    if (sums.size === 0)
        return undefined;
    // Sorted keys: concurrent writers lock rows in one order.
    const rows = [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, s]) => s);
    return (tx) => {
        for (const s of rows)
            tx.run(`INSERT INTO problem_costs (service, id, model, day, repairs, repaired, retries, steps, input_tokens,
           output_tokens, duration_ms)
         SELECT CAST(? AS TEXT),
           CASE WHEN EXISTS (SELECT 1 FROM problems WHERE service = ? AND id = ?) THEN CAST(? AS TEXT)
             ELSE '${OTHER_PROBLEM}' END,
           CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT),
           CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT) WHERE 1 = 1
         ON CONFLICT (service, id, model, day) DO UPDATE SET repairs = problem_costs.repairs + excluded.repairs,
           repaired = problem_costs.repaired + excluded.repaired, retries = problem_costs.retries + excluded.retries,
           steps = problem_costs.steps + excluded.steps,
           input_tokens = problem_costs.input_tokens + excluded.input_tokens,
           output_tokens = problem_costs.output_tokens + excluded.output_tokens,
           duration_ms = problem_costs.duration_ms + excluded.duration_ms`, [
                s.service,
                s.service,
                s.id,
                s.id,
                s.model,
                s.day,
                s.repairs,
                s.repaired,
                s.retries,
                s.steps,
                s.inputTokens,
                s.outputTokens,
                s.durationMs,
            ]);
    };
}
function zero() {
    return { repairs: 0, repaired: 0, retries: 0, steps: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 };
}
function toCostRow(r) {
    return {
        service: String(r.service),
        id: String(r.id),
        model: String(r.model),
        day: Number(r.day),
        repairs: Number(r.repairs),
        repaired: Number(r.repaired),
        retries: Number(r.retries),
        steps: Number(r.steps),
        inputTokens: Number(r.input_tokens),
        outputTokens: Number(r.output_tokens),
        durationMs: Number(r.duration_ms),
    };
}
/** The cost rows of one problem, or of every problem of the services given (all when undefined), since a day. */
export async function costRows(sql, filter) {
    const where = [];
    const args = [];
    if (filter.service !== undefined)
        where.push('service = ?'), args.push(filter.service);
    if (filter.id !== undefined)
        where.push('id = ?'), args.push(filter.id);
    if (filter.sinceMs !== undefined)
        where.push('day >= ?'), args.push(filter.sinceMs - (filter.sinceMs % DAY));
    const rows = await sql.all(`SELECT * FROM problem_costs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY service, id, day, model`, args);
    return rows.map(toCostRow);
}
/** Rows summed and priced (USD per million tokens of the failure's model, else of `*`). */
export function priceCost(rows, prices) {
    const out = { ...zero(), usd: null, unpricedTokens: 0 };
    for (const r of rows) {
        out.repairs += r.repairs;
        out.repaired += r.repaired;
        out.retries += r.retries;
        out.steps += r.steps;
        out.inputTokens += r.inputTokens;
        out.outputTokens += r.outputTokens;
        out.durationMs += r.durationMs;
        const price = Object.hasOwn(prices, r.model) ? prices[r.model] : prices['*'];
        if (price)
            out.usd = (out.usd ?? 0) + (r.inputTokens * price.input + r.outputTokens * price.output) / 1e6;
        else
            out.unpricedTokens += r.inputTokens + r.outputTokens;
    }
    if (out.usd !== null)
        out.usd = Math.round(out.usd * 1e6) / 1e6;
    return out;
}
/** Per UTC day: the repairs' cost (history of a problem's cost). */
export function costByDay(rows, prices) {
    const days = new Map();
    for (const r of rows)
        days.set(r.day, [...(days.get(r.day) ?? []), r]);
    return [...days.entries()].sort(([a], [b]) => a - b).map(([day, rs]) => ({ day, ...priceCost(rs, prices) }));
}
//# sourceMappingURL=cost.js.map