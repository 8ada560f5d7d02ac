import { PROBLEM_STATUSES } from './store.js';
/**
 * Resolves open and regressed problems quiet for `resolveAfterMs`, and ends mutes whose time has
 * come (the problem is then open, or resolved if it has been quiet). Returns the problems changed.
 */
export async function applyLifecycle(sql, nowMs, resolveAfterMs) {
    const quietSince = nowMs - resolveAfterMs;
    return sql.tx(async (tx) => {
        const unmuted = await tx.run(`UPDATE problems SET status = CASE WHEN last_seen_ms < ? THEN 'resolved' ELSE 'open' END, status_ms = ?,
         muted_until_ms = NULL
       WHERE status = 'muted' AND muted_until_ms IS NOT NULL AND muted_until_ms <= ?`, [quietSince, nowMs, nowMs]);
        const resolved = await tx.run(`UPDATE problems SET status = 'resolved', status_ms = ? WHERE status IN ('open', 'regressed') AND last_seen_ms < ?`, [nowMs, quietSince]);
        return unmuted + resolved;
    });
}
/** A status change by hand; false when there is no such problem. `untilMs` only for mute (absent = for good). */
export async function changeStatus(sql, service, id, action, nowMs, untilMs) {
    const status = action === 'resolve' ? 'resolved' : action === 'mute' ? 'muted' : 'open';
    const changed = await sql.run('UPDATE problems SET status = ?, status_ms = ?, muted_until_ms = ? WHERE service = ? AND id = ?', [status, nowMs, action === 'mute' ? (untilMs ?? null) : null, service, id]);
    return changed > 0;
}
/** Problems per status, every status present (0 when none): the toolwatch_problems gauge. */
export async function statusCounts(sql) {
    const rows = await sql.all('SELECT status, COUNT(*) AS n FROM problems GROUP BY status');
    const out = Object.fromEntries(PROBLEM_STATUSES.map((s) => [s, 0]));
    for (const r of rows)
        if (PROBLEM_STATUSES.includes(String(r.status)))
            out[r.status] = Number(r.n);
    return out;
}
/** One lifecycle round: statuses moved on, then the gauge set from the store (every replica sees the same). */
export async function lifecycleRound(sql, gauge, nowMs, resolveAfterMs) {
    await applyLifecycle(sql, nowMs, resolveAfterMs);
    const counts = await statusCounts(sql);
    for (const status of PROBLEM_STATUSES)
        gauge.set({ status }, counts[status]);
}
//# sourceMappingURL=lifecycle.js.map