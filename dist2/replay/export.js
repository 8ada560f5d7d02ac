/**
 * Production → golden set: picks traces by the filters, turns what the store kept about each into
 * draft cases (build.ts), redacts them (fail closed), gives each an id from its content and merges
 * duplicates (the same conversation and the same answer seen in several traces: one case, every
 * trace listed). Shared by `toolwatch eval export` and GET /api/export/cases.
 *
 * Which traces:
 * - no filter but `since`/`service`: every trace with a stored failure record, negative feedback or
 *   a verdict that says the goal was missed;
 * - with `outcome`, `feedback` and/or `judge`: the traces that meet all of them.
 * What each becomes: with `outcome`, or when picked only for its failures, one case per failing
 * answer; picked for its feedback or verdict, the whole trajectory as one case (see build.ts, and
 * README "Replay into the golden set" for what a case holds in each situation).
 *
 * A reader's service view (src/util/service-view.ts) is applied in every query's WHERE clause, so a
 * service-restricted token exports its services' traces only.
 */
import { createHash } from 'node:crypto';
import { FAILURE_OUTCOMES } from '../model.js';
import { fromFailureRow } from '../store/rows.js';
import { servicesMatch } from '../store/sql.js';
import { failureCases, stepCases, trajectoryCase } from './build.js';
import { loadFailureContexts } from './context.js';
import { meets } from './filters.js';
import { redactDraft } from './redact.js';
/** Traces considered per source before cases are built (newest first). */
const CANDIDATES = 5000;
const CHUNK = 200;
/** Trace ids listed under metadata.also_seen_in per case. */
const MAX_ALSO_SEEN = 20;
export class RedactionError extends Error {
    constructor(cause) {
        super(`redaction failed, nothing exported: ${cause?.message ?? String(cause)}`);
        this.name = 'RedactionError';
    }
}
/** A draft as it may leave: redacted, or the whole export refused (a case half-redacted must not be written). */
export function redactedOrRefused(d, redactor) {
    try {
        return redactDraft(d, redactor);
    }
    catch (err) {
        throw new RedactionError(err);
    }
}
const marks = (n) => Array.from({ length: n }, () => '?').join(', ');
async function failureRows(sql, q) {
    const where = [`outcome IN (${marks(q.outcomes.length)})`];
    const args = [...q.outcomes];
    if (q.sinceMs !== undefined)
        where.push('time_ms >= ?'), args.push(q.sinceMs);
    if (q.service)
        where.push('service = ?'), args.push(q.service);
    if (q.services)
        where.push(servicesMatch(sql.dialect, 'service', q.services, (v) => (args.push(v), '?')));
    if (q.traceIds)
        where.push(`trace_id IN (${marks(q.traceIds.length)})`), args.push(...q.traceIds);
    const rows = await sql.all(`SELECT * FROM failures WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`, [
        ...args,
        q.limit,
    ]);
    return rows.map(fromFailureRow);
}
/** Stored failures of these traces, by trace. */
async function failuresOf(sql, traceIds, outcomes, scope) {
    const out = new Map();
    for (let i = 0; i < traceIds.length; i += CHUNK) {
        const part = traceIds.slice(i, i + CHUNK);
        for (const f of await failureRows(sql, { outcomes, ...scope, traceIds: part, limit: CANDIDATES }))
            out.set(f.traceId, [...(out.get(f.traceId) ?? []), f]);
    }
    return out;
}
/** A case's id from its content: the same conversation and answer is one case wherever it was seen. */
export function contentId(d) {
    const key = JSON.stringify({ messages: d.messages, tools: d.tools ?? null, observed: d.observed });
    return `prod-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}
export async function exportCases(src, f) {
    // Fail closed before reading anything: a redactor that cannot be built exports nothing.
    let redactor;
    try {
        redactor = src.redactor();
    }
    catch (err) {
        throw new RedactionError(err);
    }
    const outcomes = f.outcomes ?? FAILURE_OUTCOMES.map(String);
    const only = f.traceId ? [f.traceId] : undefined;
    // The reader's view (its services' globs) narrows every query below.
    const scope = src.view?.globs ? { services: src.view.globs } : {};
    const svc = { ...(f.service ? { service: f.service } : {}), ...scope };
    const everything = !f.outcomes && !f.feedback && !f.judge;
    const byFailure = f.outcomes || everything ? new Map() : undefined;
    if (byFailure) {
        for (const r of await failureRows(src.sql, {
            sinceMs: f.sinceMs,
            ...svc,
            outcomes,
            ...(only ? { traceIds: only } : {}),
            limit: CANDIDATES,
        })) {
            byFailure.set(r.traceId, [...(byFailure.get(r.traceId) ?? []), r]);
        }
    }
    const bucket = f.feedback ?? (everything ? 'negative' : undefined);
    const byFeedback = bucket === undefined
        ? undefined
        : new Map((await src.feedback.traces({
            sinceMs: f.sinceMs,
            ...svc,
            ...(bucket !== 'any' ? { bucket } : {}),
            ...(only ? { traceIds: only } : {}),
            limit: CANDIDATES,
        })).map((t) => [t.traceId, t]));
    const conditions = f.judge ?? (everything ? [{ field: 'reached_goal', op: '=', value: 0 }] : undefined);
    let byVerdict;
    if (conditions) {
        byVerdict = await src.judge.verdicts.latestVerdicts({
            sinceMs: f.sinceMs,
            ...svc,
            ...(only ? { traceIds: only } : {}),
        });
        for (const [id, v] of byVerdict)
            if (!conditions.every((c) => meets(c, v)))
                byVerdict.delete(id);
    }
    // Which traces: the union when nothing narrows, else those every given filter picked.
    const sets = everything
        ? []
        : [f.outcomes ? byFailure : undefined, f.feedback ? byFeedback : undefined, f.judge ? byVerdict : undefined].filter((s) => s !== undefined);
    const pool = everything ? [byFailure, byFeedback, byVerdict] : sets;
    const timeOf = new Map();
    for (const m of pool) {
        for (const [id, v] of m ?? []) {
            const t = Array.isArray(v) ? Math.max(...v.map((x) => x.timeMs)) : v.timeMs;
            timeOf.set(id, Math.max(timeOf.get(id) ?? 0, t));
        }
    }
    const selected = [...timeOf.keys()]
        .filter((id) => everything || sets.every((s) => s.has(id)))
        .sort((a, b) => timeOf.get(b) - timeOf.get(a) || (a < b ? -1 : 1));
    const need = selected.filter((id) => !byFailure?.has(id));
    const failures = new Map([
        ...(byFailure ?? []),
        ...(need.length ? await failuresOf(src.sql, need, outcomes, scope) : []),
    ]);
    const feedback = new Map((await src.feedback.traces({ sinceMs: 0, ...scope, traceIds: selected.slice(0, CANDIDATES), limit: CANDIDATES })).map((t) => [t.traceId, t]));
    const verdicts = selected.length
        ? await src.judge.verdicts.latestVerdicts({ ...scope, traceIds: selected.slice(0, CANDIDATES) })
        : new Map();
    const cases = [];
    const byId = new Map();
    const summary = { traces: 0, cases: 0, duplicates: 0, skipped: [], truncated: false };
    const wanted = new Set(outcomes);
    for (const traceId of selected) {
        if (cases.length >= f.limit) {
            summary.truncated = true;
            break;
        }
        summary.traces++;
        const fs = failures.get(traceId) ?? [];
        const fb = feedback.get(traceId);
        const v = verdicts.get(traceId);
        const stored = await src.judge.trajectories.trajectory(traceId);
        const t = stored && (!src.view || src.view.sees(stored.service)) ? stored : undefined;
        const facts = {
            service: t?.service ?? fs[0]?.service ?? v?.service ?? fb?.service ?? 'unknown',
            ...(t?.model || fs[0]?.model || v?.model ? { model: t?.model || fs[0]?.model || v?.model } : {}),
            timeMs: timeOf.get(traceId) ?? 0,
            ...(fb ? { feedback: { value: fb.value, comments: fb.comments, sources: fb.sources } } : {}),
            ...(v
                ? {
                    verdict: {
                        reached_goal: v.reached_goal,
                        unnecessary_calls: v.unnecessary_calls,
                        dangerous_calls: v.dangerous_calls,
                        ...(v.reasoning ? { reasoning: v.reasoning } : {}),
                    },
                }
                : {}),
        };
        const perAnswer = Boolean(f.outcomes) || (everything && !byFeedback?.has(traceId) && !byVerdict?.has(traceId));
        let drafts = [];
        if (t?.steps.length) {
            const built = perAnswer ? stepCases(t, fs, wanted, facts) : trajectoryCase(t, fs, facts);
            drafts = Array.isArray(built) ? built : [built];
        }
        // A trajectory without the failing answer (dropped, or the call came after it closed): the records.
        if (drafts.length === 0 && fs.length) {
            const contexts = await loadFailureContexts(src.sql, fs.map((x) => ({ traceId, spanId: x.spanId })));
            drafts = failureCases(traceId, fs, contexts, facts);
        }
        if (drafts.length === 0)
            drafts = [{ traceId, reason: 'nothing_stored' }];
        for (const d of drafts) {
            if ('reason' in d) {
                summary.skipped.push(d);
                continue;
            }
            const clean = redactedOrRefused(d, redactor);
            const id = contentId(clean);
            const seen = byId.get(id);
            if (seen) {
                summary.duplicates++;
                const also = seen.metadata.also_seen_in ?? [];
                if (traceId !== seen.trace_id && !also.includes(traceId) && also.length < MAX_ALSO_SEEN)
                    seen.metadata.also_seen_in = [...also, traceId];
                continue;
            }
            if (cases.length >= f.limit) {
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
                tags: clean.tags,
                metadata: clean.metadata,
            };
            byId.set(id, c);
            cases.push(c);
        }
    }
    summary.cases = cases.length;
    return { cases, summary };
}
/** JSON Lines, one case a line, as cases.jsonl takes them. */
export function toJsonl(cases) {
    return cases.map((c) => JSON.stringify(c)).join('\n') + (cases.length ? '\n' : '');
}
//# sourceMappingURL=export.js.map