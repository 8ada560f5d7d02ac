/**
 * The alert rules' reads of the minute aggregates, a long window in slices of whole hours with the
 * event loop let through between them. A rule over 24 h (a drift baseline, a burn rate's long
 * window) sums a day of minute rows; on SQLite that is one synchronous read, and ingest waited for
 * all of it (hundreds of ms on a busy instance, evaluated every `alerts.interval`). Sliced, each
 * read covers an hour; the sums are the same (counts add up across slices) and the rows come back
 * in the store's order (byte order of the group columns, as both stores sort).
 */
import type { CallCountQuery, CallCountRow, ExecutionCountRow } from '../store/store.js';
import { yieldToLoop } from '../util/yield.js';

/** Windows longer than this are read in slices of this length. */
export const SLICE_MS = 3_600_000;

type Read<R> = (q: CallCountQuery) => Promise<R[]>;

function byteCompare(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function sliced<R extends { count: number }>(
  read: Read<R>,
  order: readonly (keyof R & string)[],
  sliceMs: number,
): Read<R> {
  return async (q) => {
    const until = q.untilMs;
    if (until === undefined || until - q.sinceMs <= sliceMs) return read(q);
    const sums = new Map<string, R>();
    for (let since = q.sinceMs; since < until; since += sliceMs) {
      if (since > q.sinceMs) await yieldToLoop();
      for (const r of await read({ ...q, sinceMs: since, untilMs: Math.min(until, since + sliceMs) })) {
        const key = JSON.stringify(order.map((k) => r[k]));
        const seen = sums.get(key);
        if (seen) seen.count += r.count;
        else sums.set(key, { ...r });
      }
    }
    return [...sums.values()].sort((a, b) => {
      for (const k of order) {
        const c = byteCompare(String(a[k]), String(b[k]));
        if (c !== 0) return c;
      }
      return 0;
    });
  };
}

/** callCounts in slices; rows ordered by service, tool, model, outcome as the stores order them. */
export function slicedCallCounts(read: Read<CallCountRow>, sliceMs = SLICE_MS): Read<CallCountRow> {
  return sliced(read, ['service', 'tool', 'model', 'outcome'], sliceMs);
}

/** executionCounts in slices; rows ordered by service, model, tool, status, call outcome as the stores order them. */
export function slicedExecutionCounts(read: Read<ExecutionCountRow>, sliceMs = SLICE_MS): Read<ExecutionCountRow> {
  return sliced(read, ['service', 'model', 'tool', 'status', 'callOutcome'], sliceMs);
}
