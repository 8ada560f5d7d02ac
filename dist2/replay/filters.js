/**
 * The filters of `toolwatch eval export` and GET /api/export/cases, read once for both: every
 * problem reported, nothing guessed. Pure.
 */
import { parseSince } from '../util/time-params.js';
import { BUCKETS } from '../feedback/value.js';
import { FAILURE_OUTCOMES } from '../model.js';
export const DEFAULT_SINCE = '7d';
export const MAX_LIMIT = 10_000;
const CONDITION = /^\s*(reached_goal|unnecessary_calls|dangerous_calls)\s*(!=|>=|<=|=|>|<)\s*([A-Za-z0-9]+)\s*$/;
function judgeConditions(text, problems) {
    const out = [];
    for (const part of text.split(',')) {
        const m = CONDITION.exec(part);
        if (!m) {
            problems.push(`judge: ${JSON.stringify(part.trim())} is not a condition; use reached_goal=true|false, ` +
                'unnecessary_calls>N or dangerous_calls>N (=, !=, >, >=, <, <=)');
            continue;
        }
        const field = m[1];
        const op = m[2];
        const raw = m[3];
        if (field === 'reached_goal') {
            if ((op !== '=' && op !== '!=') || (raw !== 'true' && raw !== 'false'))
                problems.push(`judge: reached_goal takes = or != with true or false, not ${JSON.stringify(part.trim())}`);
            else
                out.push({ field, op, value: raw === 'true' ? 1 : 0 });
        }
        else if (!/^\d+$/.test(raw))
            problems.push(`judge: ${field} compares with a whole number, not ${JSON.stringify(raw)}`);
        else
            out.push({ field, op, value: Number(raw) });
    }
    return out;
}
export function parseExportFilters(raw, nowMs, defaults) {
    const problems = [];
    const since = raw.since ?? DEFAULT_SINCE;
    const sinceMs = parseSince(since, nowMs);
    if (sinceMs === undefined)
        problems.push(`since: ${JSON.stringify(since)} is not a duration (15m, 24h, 7d), an RFC 3339 time or epoch milliseconds`);
    let outcomes;
    if (raw.outcome !== undefined) {
        outcomes = [];
        for (const o of raw.outcome.split(',').map((s) => s.trim())) {
            const known = FAILURE_OUTCOMES.find((x) => x.toLowerCase() === o.toLowerCase());
            if (known)
                outcomes.push(known);
            else
                problems.push(`outcome: ${JSON.stringify(o)} is not one of ${FAILURE_OUTCOMES.join(', ')}`);
        }
    }
    let feedback;
    if (raw.feedback !== undefined) {
        const f = raw.feedback.trim().toLowerCase();
        if (f === 'any' || BUCKETS.includes(f))
            feedback = f;
        else
            problems.push(`feedback: ${JSON.stringify(raw.feedback)} is not one of ${[...BUCKETS, 'any'].join(', ')}`);
    }
    const judge = raw.judge !== undefined ? judgeConditions(raw.judge, problems) : undefined;
    const maxLimit = defaults.maxLimit ?? MAX_LIMIT;
    let limit = defaults.limit;
    if (raw.limit !== undefined) {
        const n = Number(raw.limit);
        if (!Number.isInteger(n) || n < 1 || n > maxLimit)
            problems.push(`limit: must be a whole number from 1 to ${maxLimit}`);
        else
            limit = n;
    }
    if (raw.service !== undefined && !raw.service.trim())
        problems.push('service: must not be empty');
    if (raw.trace_id !== undefined && !/^\S{1,200}$/.test(raw.trace_id))
        problems.push('trace_id: must be a trace id');
    if (problems.length)
        return { ok: false, problems };
    return {
        ok: true,
        value: {
            since,
            sinceMs: sinceMs,
            ...(raw.service ? { service: raw.service } : {}),
            ...(outcomes ? { outcomes } : {}),
            ...(feedback ? { feedback } : {}),
            ...(judge ? { judge } : {}),
            ...(raw.trace_id
                ? { traceId: /^[0-9A-Fa-f]{32}$/.test(raw.trace_id) ? raw.trace_id.toLowerCase() : raw.trace_id }
                : {}),
            limit,
        },
    };
}
export function meets(c, v) {
    const x = c.field === 'reached_goal' ? (v.reached_goal ? 1 : 0) : v[c.field];
    switch (c.op) {
        case '=':
            return x === c.value;
        case '!=':
            return x !== c.value;
        case '>':
            return x > c.value;
        case '>=':
            return x >= c.value;
        case '<':
            return x < c.value;
        default:
            return x <= c.value;
    }
}
//# sourceMappingURL=filters.js.map