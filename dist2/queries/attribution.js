/**
 * Attribution as a reader may see it: the change events around a failure's start and the counts of
 * each candidate's windows, read from the store, judged by src/changes/attribute.ts. Rates come from
 * call_minutes (what toolwatch_tool_calls_total counts); the share on the new value from
 * version_minutes (definition versions, providers) or call_minutes' model column.
 */
import { candidatesFor, describeAttribution, judge, noChangeText, } from '../changes/attribute.js';
import { listChanges } from '../changes/store.js';
import { FAILURE_OUTCOMES } from '../model.js';
import { num } from '../store/rows.js';
import { isoTime } from '../util/iso-time.js';
/** The attribution of one subject; the reader's view is the caller's to check (the subject is of a visible service). */
export async function attribute(sql, subject, opts) {
    // Enough history to bound the oldest candidate's before window, and everything after (the next change).
    const events = await listChanges(sql, {
        service: subject.service,
        sinceMs: subject.beganMs - 2 * opts.windowMs,
        limit: 1000,
    });
    const candidates = candidatesFor(subject, events, opts);
    const counted = [];
    for (const c of candidates)
        counted.push({ ...c, counts: await countsFor(sql, subject, c) });
    return judge(counted, opts.pValue);
}
async function countsFor(sql, s, c) {
    const [before, after] = await Promise.all([rateIn(sql, s, c.windows.before), rateIn(sql, s, c.windows.after)]);
    const afterOnNew = await failuresOnNew(sql, s, c);
    return { before, after, ...(afterOnNew !== undefined ? { afterOnNew } : {}) };
}
const marks = (n) => Array.from({ length: n }, () => '?').join(', ');
async function rateIn(sql, s, w) {
    const params = [s.service, w.sinceMs, w.untilMs];
    if (s.tool !== undefined)
        params.push(s.tool);
    const rows = await sql.all(`SELECT outcome, SUM(count) AS n FROM call_minutes WHERE service = ? AND minute >= ? AND minute < ?
     ${s.tool !== undefined ? 'AND tool = ?' : ''} GROUP BY outcome`, params);
    let calls = 0;
    let failures = 0;
    for (const r of rows) {
        const outcome = String(r['outcome']);
        if (outcome === 'unvalidated')
            continue;
        calls += num(r['n']);
        if (s.outcomes.includes(outcome))
            failures += num(r['n']);
    }
    return { calls, failures };
}
async function failuresOnNew(sql, s, c) {
    const { kind, to } = c.event;
    const w = c.windows.after;
    const tool = s.tool !== undefined ? 'AND tool = ?' : '';
    const toolParam = s.tool !== undefined ? [s.tool] : [];
    let rows;
    if (kind === 'tool_definition' || kind === 'provider') {
        const column = kind === 'tool_definition' ? 'version' : 'provider';
        rows = await sql.all(`SELECT SUM(count) AS n FROM version_minutes WHERE service = ? AND ${column} = ? AND minute >= ? AND minute < ?
       ${tool} AND outcome IN (${marks(s.outcomes.length)})`, [s.service, to, w.sinceMs, w.untilMs, ...toolParam, ...s.outcomes]);
    }
    else if (kind === 'model') {
        rows = await sql.all(`SELECT SUM(count) AS n FROM call_minutes WHERE service = ? AND model = ? AND minute >= ? AND minute < ?
       ${tool} AND outcome IN (${marks(s.outcomes.length)})`, [s.service, to, w.sinceMs, w.untilMs, ...toolParam, ...s.outcomes]);
    }
    else
        return undefined;
    const n = rows[0]?.['n'];
    return n === null || n === undefined ? 0 : num(n);
}
/** A judged candidate as the API shows it. */
export function presentJudged(subject, j) {
    return {
        change: { ...j.event, time: isoTime(j.event.timeMs) },
        before: { since: isoTime(j.windows.before.sinceMs), until: isoTime(j.windows.before.untilMs), ...j.before },
        after: { since: isoTime(j.windows.after.sinceMs), until: isoTime(j.windows.after.untilMs), ...j.after },
        test: j.test,
        p: j.p,
        pText: j.pText,
        shareOnNew: j.shareOnNew,
        significant: j.significant,
        text: describeAttribution(subject, j),
    };
}
/** `likely_change` and the candidates, as GET /api/problems/:id shows them. */
export function presentAttribution(subject, a, windowMs) {
    return {
        likely_change: a.likely ? presentJudged(subject, a.likely) : null,
        attribution: {
            window: `${Math.round(windowMs / 60_000)}m`,
            text: a.likely ? describeAttribution(subject, a.likely) : noChangeText(windowMs, a.candidates.length),
            candidates: a.candidates.map((j) => presentJudged(subject, j)),
        },
    };
}
/**
 * What one change did to its scope's failure rate (every structural failure outcome): the tool's
 * for a definition change, the service's otherwise — on the same windows attribution judges it on.
 * `events`: the service's events around it (to bound the windows).
 */
export async function impactOf(sql, event, events, opts) {
    const subject = {
        service: event.service,
        ...(event.kind === 'tool_definition' && event.tool !== undefined ? { tool: event.tool } : {}),
        outcomes: FAILURE_OUTCOMES,
        beganMs: event.timeMs,
    };
    const c = candidatesFor(subject, events, opts).find((x) => x.event.id === event.id);
    if (!c)
        return undefined;
    return judge([{ ...c, counts: await countsFor(sql, subject, c) }], opts.pValue).candidates[0];
}
//# sourceMappingURL=attribution.js.map