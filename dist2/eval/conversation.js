import { isFailure } from '../model.js';
import { checkCall } from './check.js';
function answerCall(call, input, counters, state) {
    const checked = checkCall(call, input.tools, input.schemas);
    // A call that names no tool is unvalidated (no_name) for the checker, but no tool can answer it.
    const nameless = checked.outcome === 'unvalidated' && checked.detail === 'no_name';
    if (isFailure(checked.outcome) || nameless) {
        const code = checked.outcome === 'UnknownName' || nameless ? 'UNKNOWN_TOOL' : 'INVALID_ARGUMENTS';
        const message = nameless
            ? 'The tool call names no tool.'
            : checked.outcome === 'UnknownName'
                ? `There is no tool named ${call.name}.`
                : checked.outcome === 'InvalidJson'
                    ? 'The tool arguments are not a JSON object.'
                    : 'The tool arguments did not match the schema.';
        const details = nameless ? input.tools.map((t) => t.name) : (checked.detail ?? null);
        return { content: JSON.stringify({ ok: false, error: { code, message, details } }), isError: true };
    }
    if (state && input.stateful?.names.includes(call.name)) {
        try {
            const r = input.stateful.call(call.name, checked.parsed ?? {}, state.value);
            state.value = r.state;
            return 'error' in r
                ? { content: JSON.stringify({ ok: false, error: r.error }), isError: true }
                : { content: JSON.stringify({ ok: true, result: r.result }), isError: false };
        }
        catch (err) {
            // The fake tool failed (threw, timed out): the model is told, the state stays as it was.
            const message = err.message;
            return { content: JSON.stringify({ ok: false, error: { code: 'TOOL_ERROR', message } }), isError: true };
        }
    }
    // Own keys only: a tool named `constructor` has no canned result unless the case gives it one.
    const canned = Object.hasOwn(input.case.toolResults, call.name) ? input.case.toolResults[call.name] : undefined;
    if (!canned)
        return { content: JSON.stringify({ ok: true, result: null }), isError: false };
    const n = counters.get(call.name) ?? 0;
    counters.set(call.name, n + 1);
    const entry = canned[Math.min(n, canned.length - 1)];
    return 'error' in entry
        ? { content: JSON.stringify({ ok: false, error: entry.error }), isError: true }
        : { content: JSON.stringify({ ok: true, result: entry.result }), isError: false };
}
export async function converse(input) {
    const c = input.case;
    const messages = [
        ...(input.system ? [{ role: 'system', content: input.system }] : []),
        ...c.messages,
    ];
    const turns = [];
    const usage = { inputTokens: 0, outputTokens: 0 };
    const counters = new Map();
    // JSON in, JSON out: the case's initial_state is never mutated.
    const state = c.initialState !== undefined ? { value: JSON.parse(JSON.stringify(c.initialState)) } : undefined;
    let latencyMs = 0;
    let attempts = 0;
    for (let t = 0; t < c.maxTurns; t++) {
        const res = await input.adapter.complete({
            messages,
            tools: input.tools,
            ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
            ...(input.maxTokens !== undefined ? { maxTokens: input.maxTokens } : {}),
            ...(t === 0 && input.toolChoice && input.toolChoice !== 'auto' ? { toolChoice: input.toolChoice } : {}),
        });
        latencyMs += res.latencyMs;
        attempts += res.attempts;
        if (res.usage) {
            usage.inputTokens += res.usage.inputTokens;
            usage.outputTokens += res.usage.outputTokens;
        }
        // An error message is the provider's text (it may quote a key): redacted like the raw bodies.
        const outcome = res.outcome.kind === 'provider_error'
            ? { ...res.outcome, message: String(input.redact(res.outcome.message) ?? '[redacted]') }
            : res.outcome;
        const turn = {
            request: input.redact(res.request),
            response: input.redact(res.response),
            outcome,
            latencyMs: res.latencyMs,
            ...(res.usage ? { usage: res.usage } : {}),
            ...(res.transform ? { transform: res.transform } : {}),
        };
        turns.push(turn);
        const o = outcome;
        if (o.kind === 'provider_error') {
            return {
                status: 'provider_error',
                error: { code: o.code, message: o.message, ...(o.status ? { status: o.status } : {}) },
                turns,
                latencyMs,
                usage,
                attempts,
            };
        }
        if (o.kind !== 'tool_calls' || t === c.maxTurns - 1)
            break;
        // Providers that send no call id still need one to pair results; the recorded outcome keeps null.
        const calls = o.calls.map((call, i) => ({ ...call, id: call.id ?? `call_${t + 1}_${i + 1}` }));
        const answers = calls.map((call) => ({ call, ...answerCall(call, input, counters, state) }));
        turn.toolResults = answers.map((a) => ({
            callId: a.call.id,
            name: a.call.name,
            content: a.content,
            isError: a.isError,
        }));
        messages.push({ role: 'assistant', content: o.text ?? null, toolCalls: calls });
        for (const a of answers)
            messages.push({ role: 'tool', toolCallId: a.call.id, name: a.call.name, content: a.content, isError: a.isError });
    }
    return { status: 'ok', turns, latencyMs, usage, attempts, ...(state ? { endState: state.value } : {}) };
}
//# sourceMappingURL=conversation.js.map