/** Small sums over call-count rows that several kinds share. */
import { isFailure } from '../../model.js';
export function tally(rows) {
    const t = { total: 0, checked: 0, failed: 0, unvalidated: 0 };
    for (const r of rows) {
        const n = Number(r.count);
        t.total += n;
        if (r.outcome === 'unvalidated')
            t.unvalidated += n;
        else
            t.checked += n;
        if (isFailure(r.outcome))
            t.failed += n;
    }
    return t;
}
/** Tools of a group by failed calls, most first (ties by name), with their checked counts. */
export function topFailingTools(rows, limit = 5) {
    const by = new Map();
    for (const r of rows) {
        let t = by.get(r.tool);
        if (!t)
            by.set(r.tool, (t = { tool: r.tool, failed: 0, checked: 0 }));
        if (r.outcome !== 'unvalidated')
            t.checked += Number(r.count);
        if (isFailure(r.outcome))
            t.failed += Number(r.count);
    }
    return [...by.values()]
        .filter((t) => t.failed > 0)
        .sort((a, b) => b.failed - a.failed || (a.tool < b.tool ? -1 : 1))
        .slice(0, limit);
}
/** Calls per tool (every outcome). */
export function perTool(rows) {
    const m = new Map();
    for (const r of rows)
        m.set(r.tool, (m.get(r.tool) ?? 0) + Number(r.count));
    return m;
}
/** The execution statuses a rule may count as failures (`statuses`), as a schema fragment. */
export const statusesSchema = {
    type: 'array',
    items: { enum: ['client_error', 'server_error', 'error', 'tool_error'] },
    minItems: 1,
    uniqueItems: true,
    default: ['client_error'],
};
const STRUCTURAL = new Set(['InvalidJson', 'UnknownName', 'SchemaMismatch']);
export function executionTally(rows, statuses) {
    const t = { executions: 0, failed: 0 };
    for (const r of rows) {
        t.executions += r.count;
        if (statuses.includes(r.status))
            t.failed += r.count;
    }
    return t;
}
export function combinedTally(calls, executions, statuses) {
    const t = tally(calls);
    let unchecked = 0;
    let downstream = 0;
    for (const e of executions) {
        if (e.callOutcome === 'unvalidated' || e.callOutcome === 'unknown')
            unchecked += e.count;
        if (statuses.includes(e.status) && !STRUCTURAL.has(e.callOutcome))
            downstream += e.count;
    }
    return { denominator: t.checked + unchecked, failed: t.failed + downstream, structural: t.failed, downstream };
}
/** Tools of a group by failed executions, most first, with their executions (named like topFailingTools). */
export function topFailingExecutions(rows, statuses, limit = 5) {
    const by = new Map();
    for (const r of rows) {
        let t = by.get(r.tool);
        if (!t)
            by.set(r.tool, (t = { tool: r.tool, failed: 0, checked: 0 }));
        t.checked += r.count;
        if (statuses.includes(r.status))
            t.failed += r.count;
    }
    return [...by.values()]
        .filter((t) => t.failed > 0)
        .sort((a, b) => b.failed - a.failed || (a.tool < b.tool ? -1 : 1))
        .slice(0, limit);
}
//# sourceMappingURL=counts.js.map