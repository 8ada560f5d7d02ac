/**
 * Per service and tool over a window: counts by outcome and the structural error rate, and the tool's
 * executions by status (GET /api/stats and the built-in page). Aggregates are per minute: the window
 * covers whole minutes, the current one included.
 */
import { EXECUTION_STATUSES, isFailure, OUTCOMES, type ExecutionStatus, type OutcomeName } from '../model.js';
import type { ExecutionCountRow } from '../store/store.js';
import { MINUTE_MS, minuteOf } from '../store/store.js';
import { formatDuration } from '../util/duration.js';
import type { Reader } from './reader.js';
import { storeFilter } from '../util/service-view.js';

export interface ToolStats {
  service: string;
  tool: string;
  counts: Record<OutcomeName, number>;
  total: number;
  /** All but unvalidated: the denominator of the error rate. */
  checked: number;
  /** (InvalidJson + UnknownName + SchemaMismatch) / checked; null when nothing was checked. */
  errorRate: number | null;
  /** Its executions (tool spans) in the window by status; absent where no execution was read. */
  executions?: ExecutionSummary;
}

/** Executions by status, and the share that failed with a client_error (the downstream refused the call). */
export interface ExecutionSummary {
  total: number;
  byStatus: Record<ExecutionStatus, number>;
  /** client_error / total; null when there were none. */
  clientErrorRate: number | null;
}

export function executionSummary(rows: readonly Pick<ExecutionCountRow, 'status' | 'count'>[]): ExecutionSummary {
  const byStatus = Object.fromEntries(EXECUTION_STATUSES.map((s) => [s, 0])) as Record<ExecutionStatus, number>;
  let total = 0;
  for (const r of rows) {
    byStatus[r.status] = (byStatus[r.status] ?? 0) + r.count;
    total += r.count;
  }
  return { total, byStatus, clientErrorRate: total > 0 ? byStatus.client_error / total : null };
}

const emptyCounts = (): Record<OutcomeName, number> =>
  Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<OutcomeName, number>;

export async function toolStats(
  r: Reader,
  q: { windowMs: number; nowMs: number; service?: string },
): Promise<{ window: string; sinceMs: number; tools: ToolStats[] }> {
  const windowMs = Math.max(MINUTE_MS, q.windowMs);
  const sinceMs = minuteOf(q.nowMs) - windowMs + MINUTE_MS;
  const filter = { sinceMs, ...(q.service ? { service: q.service } : {}), ...storeFilter(r.view) };
  const [rows, execs] = await Promise.all([r.store.callCounts(filter), r.store.executionCounts(filter)]);
  const byTool = new Map<string, ToolStats>();
  const get = (service: string, tool: string): ToolStats => {
    const key = `${service}\u0000${tool}`;
    let s = byTool.get(key);
    if (!s) byTool.set(key, (s = { service, tool, counts: emptyCounts(), total: 0, checked: 0, errorRate: null }));
    return s;
  };
  for (const row of rows) get(row.service, row.tool).counts[row.outcome] += Number(row.count);
  const execByTool = new Map<ToolStats, ExecutionCountRow[]>();
  for (const e of execs) {
    const s = get(e.service, e.tool);
    execByTool.set(s, [...(execByTool.get(s) ?? []), e]);
  }
  const tools = [...byTool.values()].map((s) => {
    const ex = execByTool.get(s);
    return finish(ex ? { ...s, executions: executionSummary(ex) } : s);
  });
  return { window: formatDuration(windowMs), sinceMs, tools };
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
