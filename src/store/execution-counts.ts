/**
 * Executions over a window: per service, model, tool, status and the call's structural outcome,
 * summed over the minute aggregates. Written once over the store's SQL port for both engines.
 */
import type { CallOutcomeLabel, ExecutionStatus } from '../model.js';
import { num } from './rows.js';
import { byteOrder, servicesMatch, type Sql } from './sql.js';
import type { CallCountQuery, ExecutionCountRow } from './store.js';

export async function selectExecutionCounts(sql: Sql, q: CallCountQuery): Promise<ExecutionCountRow[]> {
  const args: unknown[] = [q.sinceMs, q.untilMs ?? Number.MAX_SAFE_INTEGER];
  let where = 'minute >= ? AND minute < ?';
  if (q.service) (where += ' AND service = ?'), args.push(q.service);
  if (q.services) where += ` AND ${servicesMatch(sql.dialect, 'service', q.services, (v) => (args.push(v), '?'))}`;
  const cols = ['service', 'model', 'tool', 'status', 'call_outcome'];
  const rows = await sql.all(
    `SELECT ${cols.join(', ')}, SUM(count) AS n FROM execution_minutes WHERE ${where}
     GROUP BY ${cols.join(', ')} ORDER BY ${cols.map((c) => byteOrder(sql, c)).join(', ')}`,
    args,
  );
  return rows.map((r) => ({
    service: String(r.service),
    model: String(r.model),
    tool: String(r.tool),
    status: String(r.status) as ExecutionStatus,
    callOutcome: String(r.call_outcome) as CallOutcomeLabel,
    count: num(r.n),
  }));
}
