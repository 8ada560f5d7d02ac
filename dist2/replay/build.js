/**
 * Stored production data → draft eval cases in the suite's canonical case format (README, "The
 * canonical case"): the user's message and the conversation before the answer in question, the tools
 * offered in that request, what the model did as `observed`, `expected: null` and `review: true` for
 * a person to fill, and the trace id. Pure; redaction and ids come after (export.ts).
 *
 * Three shapes, by what the store kept:
 * - a failing answer inside a stored trajectory: the conversation up to that model request (earlier
 *   calls with their tool results) and the answer's calls;
 * - a whole stored trajectory (a trace picked for its feedback or verdict): the user's message and
 *   every call the agent made, in order, with its final answer;
 * - a failure record alone (no trajectory kept): the user's message and tools of that request, as
 *   kept with the record, and only the failing calls of that answer (the others were not stored).
 */
import { definitionVersion } from '../tools/definition-hash.js';
import { FAILURE_OUTCOMES } from '../model.js';
import { isoTime } from '../util/iso-time.js';
const NO_RESULT = '[toolwatch: no tool result was recorded for this call]';
const OMITTED = new Set(['note', 'x-toolwatch-omitted']);
/** A schema the store replaced by a note (too large to keep) is left out rather than passed off as a schema. */
function exportTools(defs, notes) {
    if (!defs?.length)
        return undefined;
    return defs.map((t) => {
        const out = { type: 'function', name: t.name };
        if (t.description)
            out.description = t.description;
        const p = t.parameters;
        const marker = p && typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 1 && OMITTED.has(Object.keys(p)[0]);
        if (marker)
            notes.push(`the schema of ${t.name} was too large to keep; add it before running`);
        else if (p !== undefined)
            out.parameters = p;
        return out;
    });
}
/** The definition version of each tool kept whole (a schema replaced by a note has none). */
function versionsOf(defs) {
    if (!defs?.length)
        return {};
    const out = {};
    for (const t of defs) {
        const p = t.parameters;
        const omitted = p && typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 1 && OMITTED.has(Object.keys(p)[0]);
        if (!omitted && !Object.hasOwn(out, t.name))
            out[t.name] = definitionVersion(t);
    }
    return Object.keys(out).length > 0 ? { definition_versions: out } : {};
}
function errorsOf(f) {
    if (!f)
        return undefined;
    if (f.errors.length)
        return f.errors.slice(0, 10).map((e) => `${e.instancePath || '/'} ${e.message}`);
    return f.message ? [f.message] : undefined;
}
function tagsFor(outcomes, facts) {
    const tags = new Set(['production']);
    for (const o of outcomes)
        if (o && FAILURE_OUTCOMES.includes(o))
            tags.add(o);
    if (facts.feedback && facts.feedback.value < 0)
        tags.add('negative-feedback');
    if (facts.verdict && !facts.verdict.reached_goal)
        tags.add('goal-missed');
    return [...tags];
}
function meta(origin, facts, notes, partial = false) {
    return {
        origin,
        service: facts.service,
        ...(facts.model ? { model: facts.model } : {}),
        time: isoTime(facts.timeMs),
        ...(partial ? { partial } : {}),
        ...(notes.length ? { notes } : {}),
        ...(facts.feedback ? { feedback: facts.feedback } : {}),
        ...(facts.verdict ? { verdict: facts.verdict } : {}),
    };
}
/** The failure record of a step's call, by call id, else by name (and arguments). */
function recordOf(c, spanId, failures) {
    const here = failures.filter((f) => f.spanId === spanId);
    return (here.find((f) => c.callId !== undefined && f.callId === c.callId) ??
        here.find((f) => f.name === c.name && f.arguments === c.arguments) ??
        here.find((f) => f.name === c.name));
}
function observedCall(c, spanId, failures) {
    const f = recordOf(c, spanId, failures);
    const outcome = c.outcome ?? f?.outcome;
    const errors = outcome && FAILURE_OUTCOMES.includes(outcome) ? errorsOf(f) : undefined;
    return {
        name: c.name,
        ...(c.arguments !== undefined ? { arguments: c.arguments } : {}),
        ...(outcome ? { outcome } : {}),
        ...(errors ? { errors } : {}),
    };
}
/**
 * The conversation before `upTo` (a model step): the user's message, then each earlier answer's
 * calls with the tool results the trace recorded (matched by call id, else by name in order). A
 * call without a recorded result is answered by a marked placeholder, since providers refuse a
 * history with an unanswered call.
 */
function history(t, upTo, notes) {
    const messages = [{ role: 'user', content: t.task ?? '' }];
    let open = [];
    let synthesized = 0;
    const close = () => {
        for (const o of open)
            messages.push({ role: 'tool', tool_call_id: o.id, content: NO_RESULT });
        synthesized += open.length;
        open = [];
    };
    t.steps.slice(0, upTo).forEach((s, i) => {
        if (s.kind === 'model') {
            close();
            if (s.calls.length === 0) {
                if (s.outputText)
                    messages.push({ role: 'assistant', content: s.outputText });
                return;
            }
            const calls = s.calls.map((c, k) => ({
                id: c.callId ?? `call_${i + 1}_${k + 1}`,
                type: 'function',
                function: { name: c.name, arguments: c.arguments ?? '{}' },
            }));
            messages.push({ role: 'assistant', content: s.outputText ?? null, tool_calls: calls });
            open = calls.map((c) => ({ id: c.id, name: c.function.name }));
            return;
        }
        const at = open.findIndex((o) => (s.callId !== undefined && o.id === s.callId) || (s.callId === undefined && o.name === s.name));
        const match = at >= 0 ? at : open.findIndex((o) => o.name === s.name);
        if (match < 0)
            return; // a tool run no earlier answer asked for (or a duplicate): not part of the chat
        const [o] = open.splice(match, 1);
        const content = s.result ?? (s.status === 'error' ? `error: ${s.errorType ?? 'the tool failed'}` : '');
        messages.push({ role: 'tool', tool_call_id: o.id, content });
    });
    close();
    if (synthesized)
        notes.push(`${synthesized} earlier call(s) had no recorded tool result; their answers are placeholders`);
    return messages;
}
/** One case per failing answer of a stored trajectory (only answers with an outcome in `outcomes`). */
export function stepCases(t, failures, outcomes, facts) {
    if (!t.task)
        return { traceId: t.traceId, reason: 'no_user_message' };
    const failingSpans = new Set(failures.filter((f) => outcomes.has(f.outcome)).map((f) => f.spanId));
    const out = [];
    t.steps.forEach((s, i) => {
        if (s.kind !== 'model' || s.calls.length === 0)
            return;
        const observed = s.calls.map((c) => observedCall(c, s.spanId, failures));
        if (!failingSpans.has(s.spanId) && !observed.some((c) => c.outcome && outcomes.has(c.outcome)))
            return;
        const notes = [];
        const messages = history(t, i, notes);
        const tools = exportTools(s.offered ?? t.tools, notes);
        out.push({
            messages,
            ...(tools ? { tools } : {}),
            observed: { calls: observed, ...(s.outputText ? { text: s.outputText } : {}) },
            traceId: t.traceId,
            tags: tagsFor(observed.map((c) => c.outcome), facts),
            metadata: {
                ...meta('trajectory_step', { ...facts, ...(s.model ? { model: s.model } : {}) }, notes),
                ...versionsOf(s.offered ?? t.tools),
            },
        });
    });
    return out;
}
/** The whole stored trajectory as one case: the user's message, and every call the agent made. */
export function trajectoryCase(t, failures, facts) {
    if (!t.task)
        return { traceId: t.traceId, reason: 'no_user_message' };
    const notes = [];
    const calls = t.steps.flatMap((s) => s.kind === 'model' ? s.calls.map((c) => observedCall(c, s.spanId, failures)) : []);
    const tools = exportTools(t.tools, notes);
    return {
        messages: [{ role: 'user', content: t.task }],
        ...(tools ? { tools } : {}),
        observed: { calls, ...(t.finalAnswer ? { text: t.finalAnswer } : {}) },
        traceId: t.traceId,
        tags: tagsFor(calls.map((c) => c.outcome), facts),
        metadata: {
            ...meta('trajectory', { ...facts, ...(t.model ? { model: t.model } : {}) }, notes),
            ...versionsOf(t.tools),
        },
    };
}
/** One case per answer (span) with failure records, from the records and their kept request context. */
export function failureCases(traceId, failures, contexts, facts) {
    const bySpan = new Map();
    for (const f of failures)
        bySpan.set(f.spanId, [...(bySpan.get(f.spanId) ?? []), f]);
    return [...bySpan].map(([spanId, records]) => {
        const ctx = contexts.get(`${traceId}\u0000${spanId}`);
        if (!ctx?.userMessage)
            return { traceId, reason: ctx?.userMessageOmitted ? 'redaction_failed' : 'no_user_message' };
        const notes = [
            'no trajectory of this trace was kept: the earlier conversation is missing ' +
                'and only the failing calls of this answer are shown',
        ];
        const tools = exportTools(ctx.tools, notes);
        const ordered = [...records].sort((a, b) => a.id - b.id);
        const calls = ordered.map((f) => {
            const errors = errorsOf(f);
            return {
                name: f.name,
                ...(f.arguments !== undefined ? { arguments: f.arguments } : {}),
                outcome: f.outcome,
                ...(errors ? { errors } : {}),
            };
        });
        return {
            messages: [{ role: 'user', content: ctx.userMessage }],
            ...(tools ? { tools } : {}),
            observed: { calls },
            traceId,
            tags: tagsFor(calls.map((c) => c.outcome), facts),
            metadata: {
                ...meta('failure_record', { ...facts, model: ordered[0].model || facts.model || '' }, notes, true),
                ...versionsOf(ctx.tools),
            },
        };
    });
}
//# sourceMappingURL=build.js.map