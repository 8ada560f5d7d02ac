/**
 * The reads of one evaluation round, each done once. The rules of a round share its `now`, so their
 * windows and hour slices (src/alerts/sliced-reads.ts) fall on the same bounds: a 24 h error rate,
 * a drift's 1 h + 24 h baseline and a burn rate's 24 h + 1 h read the same 25 hours, and read
 * separately that was ~100 SQL reads a round for 25 distinct ones — the CPU of alerting beside
 * ingest. Kept for one round only (a new memo each round), so every round reads what the store holds
 * then, as before; within a round the rules see one reading of each slice instead of several taken
 * milliseconds apart, which no decision depends on.
 */
import type { CallCountQuery } from '../store/store.js';

type Read<R> = (q: CallCountQuery) => Promise<R[]>;

/** Every key of the query, whatever keys it has (a filter added later is never ignored). */
function keyOf(q: CallCountQuery): string {
  return JSON.stringify(Object.entries(q).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * `read`, answering a query it has already answered from the first answer. Each caller gets its own
 * copies of the rows (a kind may sort or change what it was given). A failed read is not kept: the
 * next rule that asks reads again, as it would have.
 */
export function onceARound<R extends object>(read: Read<R>): Read<R> {
  const seen = new Map<string, Promise<R[]>>();
  return async (q) => {
    const key = keyOf(q);
    let rows = seen.get(key);
    if (!rows) {
      rows = read(q);
      seen.set(key, rows);
      rows.catch(() => seen.delete(key));
    }
    return (await rows).map((r) => ({ ...r }));
  };
}
