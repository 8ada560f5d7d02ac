/** Small sums over call-count rows that several kinds share. */
import { isFailure } from '../../model.js';
import type { CallCountRow } from '../../store/store.js';

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
export function topFailingTools(rows: readonly CallCountRow[], limit = 5): { tool: string; failed: number; checked: number }[] {
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
