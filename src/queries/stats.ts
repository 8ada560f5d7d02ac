/**
 * Per service and tool over a window: counts by outcome and the structural error rate
 * (GET /api/stats and the built-in page). Aggregates are per minute: the window covers whole
 * minutes, the current one included.
 */
import { isFailure, OUTCOMES, type OutcomeName } from '../model.js';
import { MINUTE_MS, minuteOf } from '../store/store.js';
import { formatDuration } from '../util/duration.js';
import type { Reader } from './reader.js';
import { storeFilter } from './view.js';

export interface ToolStats {
  service: string;
  tool: string;
  counts: Record<OutcomeName, number>;
  total: number;
  /** All but unvalidated: the denominator of the error rate. */
  checked: number;
  /** (InvalidJson + UnknownName + SchemaMismatch) / checked; null when nothing was checked. */
  errorRate: number | null;
}

export async function toolStats(
  r: Reader,
  q: { windowMs: number; nowMs: number; service?: string },
): Promise<{ window: string; sinceMs: number; tools: ToolStats[] }> {
  const windowMs = Math.max(MINUTE_MS, q.windowMs);
  const sinceMs = minuteOf(q.nowMs) - windowMs + MINUTE_MS;
  const rows = await r.store.callCounts({ sinceMs, ...(q.service ? { service: q.service } : {}), ...storeFilter(r.view) });
  const byTool = new Map<string, ToolStats>();
  for (const r of rows) {
    const key = `${r.service}\u0000${r.tool}`;
    let s = byTool.get(key);
    if (!s) {
      s = { service: r.service, tool: r.tool, counts: Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<OutcomeName, number>, total: 0, checked: 0, errorRate: null };
      byTool.set(key, s);
    }
    s.counts[r.outcome] += Number(r.count);
  }
  return { window: formatDuration(windowMs), sinceMs, tools: [...byTool.values()].map(finish) };
}

/** Totals, checked and the error rate from the counts by outcome. */
export function finish(s: ToolStats): ToolStats {
  let total = 0;
  let failed = 0;
  for (const o of OUTCOMES) {
    total += s.counts[o];
    if (isFailure(o)) failed += s.counts[o];
  }
  const checked = total - s.counts.unvalidated;
  return { ...s, total, checked, errorRate: checked > 0 ? failed / checked : null };
}
