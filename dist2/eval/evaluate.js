import { isFailure, UNNAMED_TOOL } from '../model.js';
import { deepEqual } from './args.js';
import { askFor, callsProblems } from './calls-match.js';
import { checkCall } from './check.js';
import { decided, judgeProblems, judgeSlot, } from './judge-slot.js';
import { matchTrajectory } from './trajectory.js';
export const NONE = '(none)';
export const MISSING = '(missing)';
/** Calls as a decision label; a call that names no tool shows as `_unnamed`, as on production's metrics. */
const labelOf = (names) => names.length
    ? names
        .map((n) => (n === '' ? UNNAMED_TOOL : n))
        .sort()
        .join('+')
    : NONE;
export function expectedLabel(c) {
    return c.expected.kind === 'tool'
        ? labelOf(c.expected.calls.map((x) => x.name))
        : c.expected.kind === 'trajectory'
            ? 'trajectory'
            : c.expected.kind === 'judge'
                ? `judge (${c.expected.scope})`
                : c.expected.kind === 'state'
                    ? 'end state'
                    : NONE;
}
/** A case with no record at all: a failure, counted as coverage loss. */
export function missing(c, repeat) {
    const single = c.expected.kind !== 'trajectory' && c.expected.kind !== 'judge' && c.expected.kind !== 'state';
    const s = c.judge?.scope;
    return {
        ...(s
            ? {
                judge: decided(s, false, s === 'decision' ? { tool_selection_ok: false, arguments_ok: false } : { reached_goal: false }),
            }
            : {}),
        caseId: c.id,
        repeat,
        status: 'missing',
        expectedLabel: expectedLabel(c),
        decisionLabel: MISSING,
        selectionPass: single ? false : null,
        argsPass: null,
        exactMatch: single ? false : null,
        strictPass: false,
        clarified: false,
        errorReturned: false,
        recovered: false,
        calls: [],
        answered: 0,
        rejected: 0,
        problems: ['no prediction for this case and repeat'],
        latencyMs: 0,
        inputTokens: 0,
        outputTokens: 0,
    };
}
const REJECTED_STATUSES = new Set([400, 404, 413, 422]);
function outcomeKey(o, calls, clarification) {
    if (o.kind === 'tool_calls') {
        return JSON.stringify(calls.map((c) => [c.name, c.parsed ?? (typeof c.arguments === 'string' ? c.arguments : null)]), sortKeys);
    }
    if (o.kind === 'text')
        return clarification.test(o.text) ? 'clarification' : 'text';
    return o.kind;
}
function sortKeys(_k, v) {
    if (!v || typeof v !== 'object' || Array.isArray(v))
        return v;
    return Object.fromEntries(Object.keys(v)
        .sort()
        .map((k) => [k, v[k]]));
}
function judgeDecision(c, o, calls, ctx, literal, matches) {
    const e = c.expected;
    if (e.kind === 'trajectory' || e.kind === 'judge' || e.kind === 'state')
        return { pass: false, problems: [] };
    if (o.kind === 'provider_error')
        return { pass: false, problems: [`provider error: ${o.code}`] };
    if (e.kind === 'text') {
        return calls.length === 0
            ? { pass: true, problems: [] }
            : { pass: false, problems: [`called ${labelOf(calls.map((x) => x.name))}; no call expected`] };
    }
    if (e.kind === 'clarification') {
        if (calls.length)
            return { pass: false, problems: [`called ${labelOf(calls.map((x) => x.name))} instead of asking`] };
        if (o.kind === 'text' && ctx.clarification.test(o.text))
            return { pass: true, problems: [] };
        return {
            pass: false,
            problems: [`answered (${o.kind}) without asking for ${e.missing.join(', ') || 'the missing value'}`],
        };
    }
    const want = labelOf(e.calls.map((x) => x.name));
    const got = labelOf(calls.map((x) => x.name));
    if (want !== got)
        return {
            pass: false,
            problems: [calls.length ? `called ${got}, expected ${want}` : `no call (${o.kind}), expected ${want}`],
        };
    const problems = callsProblems(e.calls, calls, literal, askFor(c, ctx), matches);
    for (const m of calls)
        if (isFailure(m.outcome))
            problems.push(`${m.name}: ${m.outcome}`);
    return { pass: problems.length === 0, problems };
}
export function evaluate(c, obs, ctx) {
    const checkedTurns = obs.turns.map((t) => t.outcome.kind === 'tool_calls' ? t.outcome.calls.map((x) => checkCall(x, ctx.offered, ctx.schemas)) : []);
    const calls = checkedTurns.flat();
    const answered = obs.turns.filter((t) => t.outcome.kind !== 'provider_error').length;
    const rejected = obs.turns.filter((t) => t.outcome.kind === 'provider_error' && REJECTED_STATUSES.has(t.outcome.status ?? 0)).length;
    const errorTurns = obs.turns
        .map((t, i) => ((t.toolResults ?? []).some((r) => r.isError) ? i : -1))
        .filter((i) => i >= 0);
    const lastErrorTurn = errorTurns.length ? errorTurns[errorTurns.length - 1] : -1;
    const base = {
        caseId: c.id,
        repeat: obs.repeat,
        expectedLabel: expectedLabel(c),
        calls,
        answered,
        rejected,
        errorReturned: errorTurns.length > 0,
        latencyMs: obs.latencyMs,
        inputTokens: obs.usage.inputTokens,
        outputTokens: obs.usage.outputTokens,
    };
    const first = obs.turns[0];
    if (obs.status !== 'ok' || !first) {
        const m = missing(c, obs.repeat);
        return {
            ...m,
            ...base,
            status: 'provider_error',
            ...(obs.error ? { errorCode: obs.error.code } : {}),
            problems: [`provider error: ${obs.error?.code ?? 'unknown'}`],
        };
    }
    const firstCalls = checkedTurns[0];
    const clarified = first.outcome.kind === 'text' && firstCalls.length === 0 && ctx.clarification.test(first.outcome.text);
    const key = obs.turns.map((t, i) => outcomeKey(t.outcome, checkedTurns[i], ctx.clarification)).join(' | ');
    if (c.expected.kind === 'judge') {
        const slot = judgeSlot(c, obs, ctx, checkedTurns, null);
        return {
            ...base,
            status: 'ok',
            decisionLabel: labelOf(firstCalls.map((x) => x.name)),
            selectionPass: null,
            argsPass: null,
            exactMatch: null,
            strictPass: slot.pass === true,
            clarified,
            recovered: base.errorReturned && slot.pass === true,
            key,
            problems: judgeProblems(slot),
            judge: slot,
        };
    }
    if (c.expected.kind === 'state') {
        const ok = obs.endState !== undefined && deepEqual(c.expected.expected, obs.endState);
        return {
            ...base,
            status: 'ok',
            decisionLabel: labelOf(firstCalls.map((x) => x.name)),
            selectionPass: null,
            argsPass: null,
            exactMatch: null,
            strictPass: ok,
            clarified,
            recovered: base.errorReturned && ok,
            key,
            problems: ok
                ? []
                : [
                    `end state ${JSON.stringify(obs.endState) ?? '(none)'} differs from ${JSON.stringify(c.expected.expected)}`.slice(0, 1000),
                ],
        };
    }
    if (c.expected.kind === 'trajectory') {
        const made = calls.map((x) => ({ name: x.name, args: x.parsed }));
        const t = matchTrajectory(c.expected, made);
        const afterError = checkedTurns.slice(lastErrorTurn + 1).some((x) => x.length > 0);
        return {
            ...base,
            status: 'ok',
            decisionLabel: labelOf(firstCalls.map((x) => x.name)),
            selectionPass: null,
            argsPass: null,
            exactMatch: null,
            strictPass: t.ok,
            clarified,
            recovered: base.errorReturned && t.ok && afterError,
            key,
            problems: t.problem ? [t.problem] : [],
            ...(c.judge ? { judge: judgeSlot(c, obs, ctx, checkedTurns, t.ok) } : {}),
        };
    }
    const argMatches = [];
    const decision = judgeDecision(c, first.outcome, firstCalls, ctx, false, argMatches);
    const exact = judgeDecision(c, first.outcome, firstCalls, ctx, true);
    // The final decision: the last answer that made calls, else the last answer.
    let finalIdx = obs.turns.length - 1;
    for (let i = obs.turns.length - 1; i >= 0; i--) {
        if (checkedTurns[i].length) {
            finalIdx = i;
            break;
        }
    }
    const final = finalIdx === 0 ? decision : judgeDecision(c, obs.turns[finalIdx].outcome, checkedTurns[finalIdx], ctx, false);
    const e = c.expected;
    const selectionPass = e.kind === 'tool' ? labelOf(firstCalls.map((x) => x.name)) === expectedLabel(c) : firstCalls.length === 0;
    const hasArgs = e.kind === 'tool' && e.calls.some((x) => x.args);
    const argsPass = e.kind === 'tool' && selectionPass && hasArgs
        ? callsProblems(e.calls, firstCalls, false, askFor(c, ctx)).length === 0
        : null;
    return {
        ...base,
        status: 'ok',
        decisionLabel: labelOf(firstCalls.map((x) => x.name)),
        selectionPass,
        argsPass,
        exactMatch: exact.pass,
        strictPass: final.pass,
        clarified,
        recovered: base.errorReturned && final.pass && finalIdx > lastErrorTurn,
        key,
        problems: final.problems,
        ...(c.judge ? { judge: judgeSlot(c, obs, ctx, checkedTurns, decision.pass) } : {}),
        ...(argMatches.length ? { argMatches } : {}),
    };
}
//# sourceMappingURL=evaluate.js.map