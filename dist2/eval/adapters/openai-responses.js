/**
 * OpenAI's Responses API (`POST /v1/responses`) through the official `openai` client: function
 * tools are flat `{type: "function", name, description, parameters}`; the conversation is `input`
 * items — messages, the model's earlier `function_call` items and our `function_call_output`
 * items (paired by `call_id`); the system prompt goes as `instructions`. The answer's `output`
 * items map to the canonical outcome: `function_call` items are calls (arguments stay the raw
 * string), `message` items' `output_text` parts the text, a `refusal` part a refusal. An answer
 * cut off (`status: incomplete`) keeps whatever arguments arrived, so a cut call is InvalidJson as
 * in production. `max_tokens` is sent as `max_output_tokens`; tool_choice as Responses spells it.
 */
import OpenAI from 'openai';
import { openAIClient } from './openai-chat.js';
import { inputOutputUsage, sendWithRetries } from './sdk-errors.js';
const argsText = (v) => (typeof v === 'string' ? v : JSON.stringify(v ?? {}));
export function toResponsesInput(messages) {
    const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
    const input = [];
    for (const m of messages) {
        if (m.role === 'system')
            continue;
        if (m.role === 'tool') {
            input.push({ type: 'function_call_output', call_id: m.toolCallId, output: m.content });
        }
        else if (m.role === 'assistant') {
            if (m.content)
                input.push({ role: 'assistant', content: m.content });
            for (const c of m.toolCalls ?? [])
                input.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: argsText(c.arguments) });
        }
        else
            input.push({ role: 'user', content: m.content });
    }
    return { ...(system.length ? { instructions: system.join('\n\n') } : {}), input };
}
export function toResponsesTools(tools) {
    return tools.map((t) => ({
        type: 'function',
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        parameters: t.parameters ?? { type: 'object', properties: {} },
        // Strict mode rewrites what the model may send; the eval measures what it sends unaided.
        strict: false,
    }));
}
/** Responses: "auto" | "required" | "none" | {type: "function", name}. */
export function responsesToolChoice(c) {
    return typeof c === 'string' ? c : { type: 'function', name: c.name };
}
export function fromResponsesResponse(res) {
    const output = res?.output;
    if (!Array.isArray(output))
        return { kind: 'provider_error', code: 'bad_response', message: 'the answer has no output list' };
    const calls = [];
    const texts = [];
    let refusal;
    for (const item of output) {
        if (item.type === 'function_call') {
            if (typeof item.name !== 'string')
                return { kind: 'provider_error', code: 'bad_response', message: 'a function_call without a name' };
            calls.push({ id: item.call_id ?? item.id ?? null, name: item.name, arguments: item.arguments });
        }
        else if (item.type === 'message') {
            for (const part of item.content ?? []) {
                if (part.type === 'output_text' && typeof part.text === 'string')
                    texts.push(part.text);
                if (part.type === 'refusal' && typeof part.refusal === 'string')
                    refusal = part.refusal;
            }
        }
    }
    const text = texts.join('');
    if (calls.length)
        return { kind: 'tool_calls', calls, ...(text ? { text } : {}) };
    if (refusal !== undefined)
        return { kind: 'refusal', text: refusal };
    return { kind: 'text', text };
}
export const createOpenAIResponsesAdapter = (spec, opts) => {
    const client = openAIClient(spec, opts);
    const now = opts.now ?? Date.now;
    return {
        provider: spec.provider,
        model: spec.model,
        async complete(req) {
            const { instructions, input } = toResponsesInput(req.messages);
            const body = {
                model: spec.model,
                ...(instructions ? { instructions } : {}),
                input,
                ...(req.tools.length
                    ? { tools: toResponsesTools(req.tools), tool_choice: responsesToolChoice(req.toolChoice ?? 'auto') }
                    : {}),
                ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
                ...(req.maxTokens !== undefined ? { max_output_tokens: req.maxTokens } : {}),
                // Nothing is stored at the provider: every request carries the whole conversation.
                store: false,
                ...spec.params,
            };
            return sendWithRetries(() => client.responses.create(body), OpenAI, body, {
                retry: opts.retry,
                now,
                read: (res) => ({ outcome: fromResponsesResponse(res), ...inputOutputUsage(res) }),
            });
        },
    };
};
//# sourceMappingURL=openai-responses.js.map