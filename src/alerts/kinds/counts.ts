/** Small sums over call-count rows that several kinds share. */
import { isFailure, type ExecutionStatus } from '../../model.js';
import type { CallCountRow, ExecutionCountRow } from '../../store/store.js';

export interface Tally {
  total: number;
  /** All but unvalidated: the error rate's denominator. */
  checked: number;
  failed: number;
  unvalidated: number;
}

export function tally(rows: readonly CallCountRow[]): Tally {
  const t: Tally = { total: 0, checked: 0, failed: 0, unvalidated: 0 };
  for (const r of rows) {
    const n = Number(r.count);
    t.total += n;
    if (r.outcome === 'unvalidated') t.unvalidated += n;
    else t.checked += n;
    if (isFailure(r.outcome)) t.failed += n;
  }
  return t;
}

/** Tools of a group by failed calls, most first (ties by name), with their checked counts. */
export function topFailingTools(
  rows: readonly CallCountRow[],
  limit = 5,
): { tool: string; failed: number; checked: number }[] {
  const by = new Map<string, { tool: string; failed: number; checked: number }>();
  for (const r of rows) {
    let t = by.get(r.tool);
    if (!t) by.set(r.tool, (t = { tool: r.tool, failed: 0, checked: 0 }));
    if (r.outcome !== 'unvalidated') t.checked += Number(r.count);
    if (isFailure(r.outcome)) t.failed += Number(r.count);
  }
  return [...by.values()]
    .filter((t) => t.failed > 0)
    .sort((a, b) => b.failed - a.failed || (a.tool < b.tool ? -1 : 1))
    .slice(0, limit);
}

/** Calls per tool (every outcome). */
export function perTool(rows: readonly CallCountRow[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of rows) m.set(r.tool, (m.get(r.tool) ?? 0) + Number(r.count));
  return m;
}

/** The execution statuses a rule may count as failures (`statuses`), as a schema fragment. */
export const statusesSchema = {
  type: 'array',
  items: { enum: ['client_error', 'server_error', 'error', 'tool_error'] },
  minItems: 1,
  uniqueItems: true,
  default: ['client_error'],
} as const;

const STRUCTURAL: ReadonlySet<string> = new Set(['InvalidJson', 'UnknownName', 'SchemaMismatch']);

export interface ExecutionTally {
  executions: number;
  /** Executions whose status is one of the rule's statuses. */
  failed: number;
}

export function executionTally(
  rows: readonly ExecutionCountRow[],
  statuses: readonly ExecutionStatus[],
): ExecutionTally {
  const t: ExecutionTally = { executions: 0, failed: 0 };
  for (const r of rows) {
    t.executions += r.count;
    if (statuses.includes(r.status)) t.failed += r.count;
  }
  return t;
}

/**
 * The combined tool-call error rate (error_rate with include_execution): per call, failed when its
 * structural check failed, or — when it passed or could not be checked — when its execution failed with
 * one of `statuses`. Each call counts once:
 * - numerator: structurally failed calls + executions with a status in `statuses` whose call passed its
 *   check (`valid`) or was not checked (`unvalidated`, `unknown`);
 * - denominator: checked calls + executions of calls that were not checked (`unvalidated`, `unknown`),
 *   whatever their status — the downstream judged those calls, the schema could not.
 * A call that failed its check and then failed downstream is in both only once (as a structural failure).
 */
export interface CombinedTally {
  denominator: number;
  failed: number;
  /** Of `failed`: structural failures. */
  structural: number;
  /** Of `failed`: downstream failures of calls that had no structural failure. */
  downstream: number;
}

export function combinedTally(
  calls: readonly CallCountRow[],
  executions: readonly ExecutionCountRow[],
  statuses: readonly ExecutionStatus[],
): CombinedTally {
  const t = tally(calls);
  let unchecked = 0;
  let downstream = 0;
  for (const e of executions) {
    if (e.callOutcome === 'unvalidated' || e.callOutcome === 'unknown') unchecked += e.count;
    if (statuses.includes(e.status) && !STRUCTURAL.has(e.callOutcome)) downstream += e.count;
  }
  return { denominator: t.checked + unchecked, failed: t.failed + downstream, structural: t.failed, downstream };
}

/** Tools of a group by failed executions, most first, with their executions (named like topFailingTools). */
export function topFailingExecutions(
  rows: readonly ExecutionCountRow[],
  statuses: readonly ExecutionStatus[],
  limit = 5,
): { tool: string; failed: number; checked: number }[] {
  const by = new Map<string, { tool: string; failed: number; checked: number }>();
  for (const r of rows) {
    let t = by.get(r.tool);
    if (!t) by.set(r.tool, (t = { tool: r.tool, failed: 0, checked: 0 }));
    t.checked += r.count;
    if (statuses.includes(r.status)) t.failed += r.count;
  }
  return [...by.values()]
    .filter((t) => t.failed > 0)
    .sort((a, b) => b.failed - a.failed || (a.tool < b.tool ? -1 : 1))
    .slice(0, limit);
}
