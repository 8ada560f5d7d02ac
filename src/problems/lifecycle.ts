/**
 * A problem's status over time: `open` → `resolved` (by hand, or after `problems.resolve_after`
 * without occurrences) → `regressed` when it occurs again (the batch write does that:
 * store.ts); `muted` until a time or for good, counting on meanwhile. The clock is passed in.
 */
import type { Sql } from '../store/sql.js';
import { PROBLEM_STATUSES, type ProblemStatus } from './store.js';

export type ProblemAction = 'resolve' | 'mute' | 'reopen';

/**
 * Resolves open and regressed problems quiet for `resolveAfterMs`, and ends mutes whose time has
 * come (the problem is then open, or resolved if it has been quiet). Returns the problems changed.
 */
export async function applyLifecycle(sql: Sql, nowMs: number, resolveAfterMs: number): Promise<number> {
  const quietSince = nowMs - resolveAfterMs;
  return sql.tx(async (tx) => {
    const unmuted = await tx.run(
      `UPDATE problems SET status = CASE WHEN last_seen_ms < ? THEN 'resolved' ELSE 'open' END, status_ms = ?,
         muted_until_ms = NULL
       WHERE status = 'muted' AND muted_until_ms IS NOT NULL AND muted_until_ms <= ?`,
      [quietSince, nowMs, nowMs],
    );
    const resolved = await tx.run(
      `UPDATE problems SET status = 'resolved', status_ms = ? WHERE status IN ('open', 'regressed') AND last_seen_ms < ?`,
      [nowMs, quietSince],
    );
    return unmuted + resolved;
  });
}

/** A status change by hand; false when there is no such problem. `untilMs` only for mute (absent = for good). */
export async function changeStatus(
  sql: Sql,
  service: string,
  id: string,
  action: ProblemAction,
  nowMs: number,
  untilMs?: number,
): Promise<boolean> {
  const status: ProblemStatus = action === 'resolve' ? 'resolved' : action === 'mute' ? 'muted' : 'open';
  const changed = await sql.run(
    'UPDATE problems SET status = ?, status_ms = ?, muted_until_ms = ? WHERE service = ? AND id = ?',
    [status, nowMs, action === 'mute' ? (untilMs ?? null) : null, service, id],
  );
  return changed > 0;
}

/** Problems per status, every status present (0 when none): the toolwatch_problems gauge. */
export async function statusCounts(sql: Sql): Promise<Record<ProblemStatus, number>> {
  const rows = await sql.all('SELECT status, COUNT(*) AS n FROM problems GROUP BY status');
  const out = Object.fromEntries(PROBLEM_STATUSES.map((s) => [s, 0])) as Record<ProblemStatus, number>;
  for (const r of rows)
    if ((PROBLEM_STATUSES as readonly string[]).includes(String(r.status)))
      out[r.status as ProblemStatus] = Number(r.n);
  return out;
}

/** One lifecycle round: statuses moved on, then the gauge set from the store (every replica sees the same). */
export async function lifecycleRound(
  sql: Sql,
  gauge: { set(labels: { status: string }, value: number): void },
  nowMs: number,
  resolveAfterMs: number,
): Promise<void> {
  await applyLifecycle(sql, nowMs, resolveAfterMs);
  const counts = await statusCounts(sql);
  for (const status of PROBLEM_STATUSES) gauge.set({ status }, counts[status]);
}
