import { problemById, problemExamples } from '../problems/store.js';
import { fromFailureRow } from '../store/rows.js';
import { failureCases, stepCases, trajectoryCase } from './build.js';
import { loadFailureContexts } from './context.js';
import { contentId, RedactionError, redactedOrRefused } from './export.js';
const STRUCTURAL = new Set(['InvalidJson', 'UnknownName', 'SchemaMismatch']);
async function selectProblems(src, sel) {
    const rows = 'ids' in sel
        ? (await Promise.all(sel.ids.map((id) => problemById(src.sql, id)))).flat()
        : (await src.sql
            .all('SELECT id, service FROM problems WHERE status = ? ORDER BY occurrences DESC, id', [sel.status])
            .then((rs) => Promise.all(rs.map((r) => problemById(src.sql, String(r.id), String(r.service)))))).flat();
    return rows.filter((p) => !src.view || src.view.sees(p.service));
}
export async function problemCases(src, sel, limit) {
    let redactor;
    try {
        redactor = src.redactor();
    }
    catch (err) {
        throw new RedactionError(err);
    }
    const problems = await selectProblems(src, sel);
    const summary = {
        problems: problems.length,
        traces: 0,
        cases: 0,
        duplicates: 0,
        skipped: [],
        truncated: false,
    };
    const cases = [];
    const byId = new Map();
    for (const p of problems) {
        const seen = new Set();
        for (const ex of await problemExamples(src.sql, p.service, p.id)) {
            const traceId = String(ex.trace_id);
            const spanId = String(ex.span_id);
            if (seen.has(`${traceId}\u0000${spanId}`))
                continue;
            seen.add(`${traceId}\u0000${spanId}`);
            summary.traces++;
            for (const d of await draftsFor(src, p, traceId, spanId, String(ex.model), Number(ex.time_ms))) {
                if ('reason' in d) {
                    summary.skipped.push(d);
                    continue;
                }
                const clean = redactedOrRefused(d, redactor);
                const id = contentId(clean);
                if (byId.has(id)) {
                    summary.duplicates++;
                    continue;
                }
                if (cases.length >= limit) {
                    summary.truncated = true;
                    break;
                }
                const c = {
                    id,
                    messages: clean.messages,
                    ...(clean.tools ? { tools: clean.tools } : {}),
                    expected: null,
                    review: true,
                    trace_id: traceId,
                    observed: clean.observed,
                    tags: [...clean.tags, `problem:${p.id}`],
                    metadata: { ...clean.metadata, problem: { id: p.id, outcome: p.outcome, signature: p.canonical } },
                };
                byId.set(id, c);
                cases.push(c);
            }
        }
    }
    summary.cases = cases.length;
    return { cases, summary };
}
/** The drafts of one example: its answer in the stored trajectory, else its failure record. */
async function draftsFor(src, p, traceId, spanId, model, timeMs) {
    const facts = { service: p.service, ...(model ? { model } : {}), timeMs };
    const stored = await src.judge.trajectories.trajectory(traceId);
    const t = stored && (!src.view || src.view.sees(stored.service)) && stored.steps.length ? stored : undefined;
    if (!STRUCTURAL.has(p.outcome)) {
        // A failed execution's call passed its check: the trajectory shows what the tool answered and what came after.
        return [t ? trajectoryCase(t, [], facts) : { traceId, reason: 'nothing_stored' }];
    }
    const records = (await src.sql.all('SELECT * FROM failures WHERE trace_id = ? AND span_id = ? AND service = ? ORDER BY id', [
        traceId,
        spanId,
        p.service,
    ])).map(fromFailureRow);
    const outcome = p.outcome;
    if (t) {
        const built = stepCases(t, records, new Set([outcome]), facts);
        if (!Array.isArray(built) || built.length)
            return Array.isArray(built) ? built : [built];
    }
    if (records.length === 0)
        return [{ traceId, reason: 'nothing_stored' }];
    const contexts = await loadFailureContexts(src.sql, [{ traceId, spanId }]);
    return failureCases(traceId, records, contexts, facts);
}
//# sourceMappingURL=problem-export.js.map