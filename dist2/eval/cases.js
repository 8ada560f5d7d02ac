/**
 * cases.jsonl → canonical cases. One JSON object a line: call-list, kind or expected_tool cases, or
 * the canonical form (see README, "Case formats"); forms may be mixed in one file. Every problem is
 * reported with file:line, and one bad line rejects the whole file (nothing runs on half a suite).
 */
import { classify } from '../check/classify.js';
import { ToolRegistry } from '../check/registry.js';
import { toToolDef } from '../tools/tooldefs.js';
import { readCaseJudge } from './case-judge.js';
import { replayJudge } from './replay.js';
import { readState } from './state-expected.js';
import { expectedToolNames, readExpected, readExpectedTool, readTrajectory } from './case-expected.js';
import { readMessages } from './case-messages.js';
import { Matcher } from './matchers.js';
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Every key a case line may have (README, "Case formats"); any other is an error. */
export const CASE_KEYS = new Set([
    'id',
    'user',
    'prompt',
    'user_message',
    'context',
    'messages',
    'expected',
    'expected_tool',
    'expected_args',
    'match_mode',
    'expected_trajectory',
    'tags',
    'tools',
    'tool_results',
    'max_turns',
    'trace_id',
    'observed',
    'review',
    'description',
    'notes',
    'why',
    'comment',
    'metadata',
    'judge',
    'initial_state',
    'expected_state',
    'reference_trajectory',
]);
const INPUT_KEYS = ['messages', 'user', 'prompt', 'user_message'];
export const MAX_TURNS_LIMIT = 20;
export function parseCases(text, file, opts) {
    const out = { cases: [], skipped: [], problems: [] };
    const firstLine = new Map();
    text.split('\n').forEach((raw, i) => {
        const line = i + 1;
        if (raw.trim() === '')
            return;
        let value;
        try {
            value = JSON.parse(raw);
        }
        catch (err) {
            out.problems.push(`${file}:${line}: not valid JSON (${err.message})`);
            return;
        }
        const r = parseCase(value, file, line, opts);
        if (!r.ok) {
            out.problems.push(`${file}:${line}: ${r.error}`);
            return;
        }
        const id = r.value.id;
        const first = firstLine.get(id);
        if (first !== undefined) {
            out.problems.push(`${file}:${line}: duplicate case id ${JSON.stringify(id)} (first on line ${first})`);
            return;
        }
        firstLine.set(id, line);
        if ('reason' in r.value)
            out.skipped.push(r.value);
        else
            out.cases.push(r.value);
    });
    return out;
}
function parseCase(v, file, line, opts) {
    if (!isObj(v))
        return { ok: false, error: 'a case must be a JSON object' };
    const unknown = Object.keys(v).filter((k) => !CASE_KEYS.has(k));
    if (unknown.length)
        return { ok: false, error: `unknown key(s) ${unknown.map((k) => JSON.stringify(k)).join(', ')}` };
    if ((typeof v.id !== 'string' || v.id === '') && !Number.isInteger(v.id))
        return { ok: false, error: 'id: must be a non-empty string' };
    const id = String(v.id);
    const at = (error) => ({ ok: false, error: `case ${JSON.stringify(id)}: ${error}` });
    if (v.review !== undefined && typeof v.review !== 'boolean')
        return at('review: must be true or false');
    if (v.trace_id !== undefined && typeof v.trace_id !== 'string')
        return at('trace_id: must be a string');
    const traceId = v.trace_id;
    const hasExpectation = (v.expected !== undefined && v.expected !== null) || 'expected_tool' in v || v.expected_trajectory !== undefined;
    // An exported production failure nobody has reviewed yet: kept in the file, counted, never run.
    if (v.review === true && !hasExpectation && !opts.replay)
        return { ok: true, value: { id, file, line, reason: 'review', ...(traceId ? { traceId } : {}) } };
    const replayed = v.review === true && !hasExpectation;
    const messages = readInput(v);
    if (!messages.ok)
        return at(messages.error);
    const judged = replayed ? replayJudge(v) : (readState(v) ?? readCaseJudge(v));
    if (!judged.ok)
        return at(judged.error);
    const expected = judged.value.expected
        ? { ok: true, value: judged.value.expected }
        : readExpectation(judged.value.rest);
    if (!expected.ok)
        return at(expected.error);
    let tools;
    if (v.tools !== undefined) {
        if (!Array.isArray(v.tools) || v.tools.length === 0)
            return at('tools: must be a non-empty list of tool definitions');
        tools = [];
        for (const [i, t] of v.tools.entries()) {
            const def = toToolDef(t);
            if (!def)
                return at(`tools[${i}]: not a tool definition`);
            tools.push(def);
        }
    }
    const offered = tools ?? opts.tools;
    const where = tools ? "the case's tools" : 'tools.json';
    const offeredNames = new Set(offered.map((t) => t.name));
    for (const name of expectedToolNames(expected.value)) {
        if (!offeredNames.has(name))
            return at(`expected tool ${JSON.stringify(name)} is not in ${where} (offered: ${[...offeredNames].join(', ')})`);
    }
    const schemaProblem = checkExpectedArgs(expected.value, offered, opts.schemas);
    if (schemaProblem)
        return at(schemaProblem);
    const toolResults = readToolResults(v.tool_results, offeredNames);
    if (!toolResults.ok)
        return at(toolResults.error);
    if (v.tags !== undefined && (!Array.isArray(v.tags) || !v.tags.every((t) => typeof t === 'string')))
        return at('tags: must be a list of strings');
    const multiTurn = Object.keys(toolResults.value).length > 0 ||
        expected.value.kind === 'trajectory' ||
        expected.value.kind === 'state' ||
        judged.value.judge?.scope === 'trajectory';
    let maxTurns = multiTurn ? opts.defaultMaxTurns : 1;
    if (v.max_turns !== undefined) {
        if (!Number.isInteger(v.max_turns) || v.max_turns < 1 || v.max_turns > MAX_TURNS_LIMIT) {
            return at(`max_turns: must be an integer from 1 to ${MAX_TURNS_LIMIT}`);
        }
        maxTurns = v.max_turns;
    }
    return {
        ok: true,
        value: {
            id,
            file,
            line,
            format: formatOf(v),
            messages: messages.value,
            ...(tools ? { tools } : {}),
            expected: expected.value,
            tags: v.tags ?? [],
            toolResults: toolResults.value,
            maxTurns,
            ...(traceId ? { traceId } : {}),
            ...(v.observed !== undefined ? { observed: v.observed } : {}),
            ...(judged.value.judge ? { judge: judged.value.judge } : {}),
            ...(v.initial_state !== undefined ? { initialState: v.initial_state } : {}),
        },
    };
}
function formatOf(v) {
    if ('expected_tool' in v || 'user_message' in v)
        return 'expected-tool';
    if (Array.isArray(v.expected))
        return 'call-list';
    if ('prompt' in v && v.expected !== undefined)
        return 'kind';
    return 'canonical';
}
/** Exactly one of messages / user / prompt / user_message; `context` = prior turns before the user's. */
function readInput(v) {
    const given = INPUT_KEYS.filter((k) => v[k] !== undefined);
    if (given.length !== 1) {
        return {
            ok: false,
            error: given.length
                ? `give one input, not ${given.join(' and ')}`
                : 'no input: give messages, user, prompt or user_message',
        };
    }
    const key = given[0];
    if (key === 'messages') {
        if (v.context !== undefined)
            return { ok: false, error: 'context: not with messages (put the prior turns in messages)' };
        const m = readMessages(v.messages, 'messages');
        if (!m.ok)
            return m;
        if (!m.value.some((x) => x.role === 'user'))
            return { ok: false, error: 'messages: needs at least one user message' };
        return m;
    }
    const text = v[key];
    if (typeof text !== 'string' || text.trim() === '')
        return { ok: false, error: `${key}: must be a non-empty string` };
    const prior = v.context === undefined || v.context === null
        ? { ok: true, value: [] }
        : readMessages(v.context, 'context');
    if (!prior.ok)
        return prior;
    return { ok: true, value: [...prior.value, { role: 'user', content: text }] };
}
/** Exactly one of expected / expected_tool / expected_trajectory. */
function readExpectation(v) {
    const hasExpected = v.expected !== undefined && v.expected !== null;
    const hasExpectedTool = 'expected_tool' in v;
    const hasTrajectory = v.expected_trajectory !== undefined;
    const n = Number(hasExpected) + Number(hasExpectedTool) + Number(hasTrajectory);
    if (n === 0) {
        const hint = v.review === true ? '' : ' (an exported case waiting for review needs review: true)';
        return { ok: false, error: `no expectation: give expected, expected_tool or expected_trajectory${hint}` };
    }
    if (n > 1)
        return { ok: false, error: 'give one of expected, expected_tool, expected_trajectory' };
    if (!hasExpectedTool && (v.expected_args !== undefined || v.match_mode !== undefined)) {
        return { ok: false, error: 'expected_args / match_mode belong with expected_tool (an expected_tool case)' };
    }
    if (hasTrajectory)
        return readTrajectory(v.expected_trajectory);
    if (hasExpectedTool)
        return readExpectedTool(v.expected_tool, v.expected_args, v.match_mode);
    return readExpected(v.expected);
}
function readToolResults(v, offered) {
    if (v === undefined || v === null)
        return { ok: true, value: {} };
    if (!isObj(v))
        return { ok: false, error: 'tool_results: must map tool names to results' };
    const out = {};
    for (const [tool, entry] of Object.entries(v)) {
        if (!offered.has(tool))
            return { ok: false, error: `tool_results.${tool}: not an offered tool` };
        const list = Array.isArray(entry) ? entry : [entry];
        if (list.length === 0)
            return { ok: false, error: `tool_results.${tool}: empty list` };
        const results = [];
        for (const [i, r] of list.entries()) {
            const keys = isObj(r) ? Object.keys(r) : [];
            if (!isObj(r) || keys.length !== 1 || !('result' in r || 'error' in r)) {
                return { ok: false, error: `tool_results.${tool}[${i}]: must be {"result": …} or {"error": …}` };
            }
            results.push('result' in r ? { result: r.result } : { error: r.error });
        }
        // defineProperty: a tool named `__proto__` is a key like any other (an assignment would set the prototype).
        Object.defineProperty(out, tool, { value: results, enumerable: true, writable: true, configurable: true });
    }
    return { ok: true, value: out };
}
/**
 * An exact expectation that the tool's own schema rejects can never pass: a mistake in the case.
 * Checked with the production checker, so case and model are held to the same rules.
 */
function checkExpectedArgs(e, offered, schemas) {
    const literals = [];
    if (e.kind === 'tool') {
        for (const c of e.calls) {
            const a = c.args;
            if (a && a.extra === 'fail' && a.optional.length === 0 && a.checks.every((x) => x.mode === 'exact'))
                literals.push(...literalChoices(c.name, a.literal));
        }
    }
    else if (e.kind === 'trajectory' && e.argsMode === 'exact' && Object.keys(e.argsOverrides).length === 0) {
        for (const c of e.calls)
            literals.push({ name: c.name, args: c.arguments });
    }
    for (const l of literals) {
        const raw = JSON.stringify(l.args);
        const r = classify({ name: l.name, args: { kind: 'structured', value: l.args, raw }, service: 'eval', offered }, EMPTY, schemas);
        if (r.outcome === 'SchemaMismatch') {
            const first = r.errors[0];
            return `expected arguments of ${JSON.stringify(l.name)} break its schema (${first ? `${first.instancePath || '/'} ${first.message}` : 'invalid'})`;
        }
    }
    return undefined;
}
const EMPTY = new ToolRegistry();
/**
 * The literal argument objects a spec with matchers stands for, each checked against the schema:
 * every alternative of an any_of (the others at their first), an optional one also left out. A
 * spec without matchers is itself.
 */
function literalChoices(name, literal) {
    const keys = Object.keys(literal).filter((k) => literal[k] instanceof Matcher);
    if (!keys.length)
        return [{ name, args: literal }];
    const base = {};
    for (const [k, v] of Object.entries(literal))
        if (!(v instanceof Matcher))
            base[k] = v;
    const first = (m) => m.examples()[0];
    for (const k of keys) {
        const x = first(literal[k]);
        if (x !== undefined)
            base[k] = x;
    }
    const out = [{ name, args: base }];
    for (const k of keys) {
        const m = literal[k];
        for (const x of m.examples().slice(1))
            out.push({ name, args: { ...base, [k]: x } });
        if (m.optional) {
            const { [k]: _, ...rest } = base;
            out.push({ name, args: rest });
        }
    }
    return out;
}
//# sourceMappingURL=cases.js.map