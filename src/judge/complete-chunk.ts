/**
 * One transaction of completing idle judge candidates (TrajectoryStore.finalize reads them and calls
 * this per chunk, letting the event loop through between two): its statements and how the chunk's
 * rows are grouped into them.
 */
import { num } from '../store/rows.js';
import type { Row, Sql } from '../store/sql.js';

/** Candidates completed per transaction (between two of them the event loop runs). */
export const FINALIZE_TX_ROWS = 100;

/** A list of FINALIZE_TX_ROWS placeholders: every chunk's statements have one text (padded, see completeChunk). */
const ID_LIST = `(${Array.from({ length: FINALIZE_TX_ROWS }, () => '?').join(', ')})`;

/**
 * The statements of a chunk. Their conditions on `status` and `last_seen_ms` are written so that the
 * (status, last_seen_ms) index cannot serve them (`status || ''`, `last_seen_ms + 0`, the same on
 * both databases), and the rows are looked up by trace id, the primary key: SQLite otherwise picks
 * that index and scans every open, or every dropped (kept for the retention period), trajectory,
 * three times slower than a statement per row.
 */
export const COMPLETE_ROWS = `UPDATE judge_trajectories SET status = ?, probability = ?, updated_ms = ?
  WHERE trace_id IN ${ID_LIST} AND status || '' = 'open' AND last_seen_ms + 0 <= ?`;
export const DELETE_DROPPED_STEPS = `DELETE FROM judge_steps WHERE trajectory IN (
  SELECT id FROM judge_trajectories WHERE trace_id IN ${ID_LIST} AND status || '' = 'dropped')`;

/**
 * One transaction of completing idle candidates: a statement per outcome and probability (sampled →
 * pending, the rest → dropped), not per candidate, then one DELETE of the steps of those it dropped.
 * Each UPDATE re-checks that the row is still open and idle (a span may have arrived, on another
 * replica, since the SELECT); the DELETE takes the steps of the rows that are now dropped, so a row a
 * span reopened keeps its steps. Id lists are padded to FINALIZE_TX_ROWS with their last id (a
 * repeated id matches the same row once), so the statements' texts do not vary with the chunk's size.
 */
export async function completeChunk(
  tx: Sql,
  rows: readonly Row[],
  at: { nowMs: number; cutoff: number },
  probability: (r: Row) => number,
): Promise<{ pending: number; dropped: number }> {
  const groups = new Map<string, { status: 'pending' | 'dropped'; p: number; ids: unknown[] }>();
  for (const r of rows) {
    const p = probability(r);
    const status = num(r.position) < p ? 'pending' : 'dropped';
    const key = `${status}:${p}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { status, p, ids: [] }));
    g.ids.push(r.trace_id);
  }
  const n = { pending: 0, dropped: 0 };
  const droppedIds: unknown[] = [];
  for (const g of groups.values()) {
    n[g.status] += await tx.run(COMPLETE_ROWS, [g.status, g.p, at.nowMs, ...padded(g.ids), at.cutoff]);
    if (g.status === 'dropped') droppedIds.push(...g.ids);
  }
  if (n.dropped > 0) await tx.run(DELETE_DROPPED_STEPS, padded(droppedIds));
  return n;
}

const padded = (ids: readonly unknown[]): unknown[] => {
  const out = [...ids];
  while (out.length < FINALIZE_TX_ROWS) out.push(ids[ids.length - 1]);
  return out;
};
