/**
 * toolwatch eval export — stored production failures and trajectories as draft cases for a suite's
 * cases.jsonl. Filters are checked before the store is opened: a bad or unknown one is a usage
 * error (exit 2) and nothing is written. Redaction fails closed (exit 1, nothing written). The file
 * is written whole (temp file + rename), or with --append added to, skipping ids it already holds.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { FeedbackStore } from '../feedback/store.js';
import { JudgeStore } from '../judge/store.js';
import { createRedactor } from '../redact/redact.js';
import { exportCases, RedactionError, toJsonl } from './export.js';
import { parseExportFilters } from './filters.js';
import { problemCases } from './problem-export.js';
import { PROBLEM_STATUSES } from '../problems/store.js';
export const EXPORT_USAGE = `usage: toolwatch eval export --out FILE.jsonl [--since 7d] [--service S]
                           [--outcome SchemaMismatch,InvalidJson,UnknownName]
                           [--feedback negative|positive|neutral|any] [--judge reached_goal=false,unnecessary_calls>0]
                           [--trace-id ID] [--limit N] [--append] [--config FILE]
                           [--problem ID,… | --problems open|regressed|resolved|muted] (instead of the trace filters)`;
/** The options of `toolwatch eval export`, as parseArgs reads them (the README's option table lists each). */
export const EXPORT_OPTIONS = {
    out: { type: 'string' },
    since: { type: 'string' },
    service: { type: 'string' },
    outcome: { type: 'string' },
    feedback: { type: 'string' },
    judge: { type: 'string' },
    'trace-id': { type: 'string' },
    problem: { type: 'string' },
    problems: { type: 'string' },
    limit: { type: 'string' },
    append: { type: 'boolean' },
    config: { type: 'string' },
};
export function parseExportArgs(argv, nowMs, cwd) {
    let values;
    try {
        values = parseArgs({
            args: [...argv],
            options: EXPORT_OPTIONS,
            strict: true,
            allowPositionals: false,
        }).values;
    }
    catch (err) {
        return { ok: false, problems: [err.message] };
    }
    const str = (k) => (typeof values[k] === 'string' ? values[k] : undefined);
    const raw = {
        ...(str('since') !== undefined ? { since: str('since') } : {}),
        ...(str('service') !== undefined ? { service: str('service') } : {}),
        ...(str('outcome') !== undefined ? { outcome: str('outcome') } : {}),
        ...(str('feedback') !== undefined ? { feedback: str('feedback') } : {}),
        ...(str('judge') !== undefined ? { judge: str('judge') } : {}),
        ...(str('trace-id') !== undefined ? { trace_id: str('trace-id') } : {}),
        ...(str('limit') !== undefined ? { limit: str('limit') } : {}),
    };
    const parsed = parseExportFilters(raw, nowMs, { limit: 1000 });
    const problems = parsed.ok ? [] : parsed.problems.map((p) => `--${p.replace(/^trace_id/, 'trace-id')}`);
    const out = str('out');
    if (!out)
        problems.push('--out: required (a file, or - for stdout)');
    const file = out && out !== '-' ? path.resolve(cwd, out) : out;
    if (file && file !== '-' && existsSync(file) && values.append !== true)
        problems.push(`--out: ${file} exists; add --append to add to it, or choose another file`);
    const selection = problemSelection(str('problem'), str('problems'), values, problems);
    if (problems.length || !parsed.ok)
        return { ok: false, problems };
    return {
        ok: true,
        value: {
            out: file,
            append: values.append === true,
            filters: parsed.value,
            ...(selection ? { problems: selection } : {}),
        },
    };
}
const PROBLEM_ID = /^(?:[0-9a-f]{16}|_other)$/;
/** --problem ids or --problems status; the trace filters do not combine with them. */
function problemSelection(ids, status, values, problems) {
    if (ids === undefined && status === undefined)
        return undefined;
    if (ids !== undefined && status !== undefined)
        problems.push('--problem and --problems: give one of them');
    for (const k of ['since', 'service', 'outcome', 'feedback', 'judge', 'trace-id'])
        if (values[k] !== undefined)
            problems.push(`--${k}: does not combine with --problem/--problems`);
    if (ids !== undefined) {
        const list = ids.split(',').map((s) => s.trim());
        const bad = list.filter((id) => !PROBLEM_ID.test(id));
        if (bad.length)
            problems.push(`--problem: ${bad.map((b) => JSON.stringify(b)).join(', ')} is not a problem id (16 hex digits)`);
        return { ids: list };
    }
    if (!PROBLEM_STATUSES.includes(status)) {
        problems.push(`--problems: must be one of ${PROBLEM_STATUSES.join(', ')}`);
        return undefined;
    }
    return { status: status };
}
/** Ids already in a cases file (lines that are not JSON objects with an id are left alone). */
function idsIn(file) {
    const ids = new Set();
    if (!existsSync(file))
        return ids;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
        try {
            const v = JSON.parse(line);
            if (typeof v.id === 'string')
                ids.add(v.id);
        }
        catch {
            // not a case line
        }
    }
    return ids;
}
export async function runExport(a, stores, io) {
    let res;
    try {
        // The command line sees every service (it holds the store itself); the API goes through a Reader.
        const redactor = () => createRedactor(stores.redact);
        const judge = new JudgeStore(stores.sql);
        res = a.problems
            ? await problemCases({ sql: stores.sql, judge, redactor }, a.problems, a.filters.limit)
            : await exportCases({ sql: stores.sql, judge, feedback: new FeedbackStore(stores.sql), redactor }, a.filters);
    }
    catch (err) {
        if (!(err instanceof RedactionError))
            throw err;
        io.err(`toolwatch: ${err.message}\n`);
        return 1;
    }
    let cases = res.cases;
    let already = 0;
    if (a.out === '-')
        io.out(toJsonl(cases));
    else if (a.append) {
        const have = idsIn(a.out);
        cases = cases.filter((c) => !have.has(c.id));
        already = res.cases.length - cases.length;
        mkdirSync(path.dirname(a.out), { recursive: true });
        const prior = existsSync(a.out) ? readFileSync(a.out, 'utf8') : '';
        appendFileSync(a.out, (prior && !prior.endsWith('\n') ? '\n' : '') + toJsonl(cases));
    }
    else {
        mkdirSync(path.dirname(a.out), { recursive: true });
        const tmp = `${a.out}.${process.pid}.tmp`;
        writeFileSync(tmp, toJsonl(cases));
        renameSync(tmp, a.out);
    }
    const s = res.summary;
    const reasons = new Map();
    for (const k of s.skipped)
        reasons.set(k.reason, (reasons.get(k.reason) ?? 0) + 1);
    const parts = [
        `${cases.length} case(s) from ${s.traces} trace(s)${s.problems !== undefined ? ` of ${s.problems} problem(s)` : ''}`,
        ...(s.duplicates ? [`${s.duplicates} duplicate(s) merged`] : []),
        ...(already ? [`${already} already in the file`] : []),
        ...[...reasons].map(([r, n]) => `${n} skipped: ${r.replaceAll('_', ' ')}`),
        ...(s.truncated ? [`stopped at --limit ${a.filters.limit}`] : []),
    ];
    io.err(`toolwatch eval export: ${parts.join(', ')}${a.out === '-' ? '' : ` → ${a.out}`} ` +
        `(${a.problems ? 'kept examples' : `since ${a.filters.since}`}; a case runs once a person fills its "expected")\n`);
    return 0;
}
//# sourceMappingURL=cli.js.map