/**
 * Anthropic Messages through `@anthropic-ai/sdk`. System messages go to `system`; an assistant
 * turn's calls become tool_use blocks and tool results tool_result blocks in the next user turn;
 * tool_choice {type: "auto"}. `max_tokens` is required by the protocol: the suite's, else 1024.
 * A tool_use `input` arrives as an object and is kept as is (never re-serialised for checking).
 * `stream: true` on the model streams the answer (messages-stream.ts).
 */
import Anthropic from '@anthropic-ai/sdk';
import { HarnessError } from './adapter.js';
import { anthropicToolChoice } from '../tool-choice.js';
import { assembleMessageStream } from './messages-stream.js';
import { inputOutputUsage, sendWithRetries } from './sdk-errors.js';
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;
function inputObject(c) {
    let v = c.arguments;
    if (typeof v === 'string') {
        try {
            v = JSON.parse(v);
        }
        catch {
            v = undefined;
        }
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) {
        throw new HarnessError(`history call ${c.name} (${c.id ?? 'no id'}): arguments are not a JSON object; a tool_use input must be one`);
    }
    return v;
}
/** Canonical messages → {system, messages}; consecutive same-role turns are merged. */
export function toAnthropicMessages(messages) {
    const system = [];
    const turns = [];
    const push = (role, blocks) => {
        const last = turns[turns.length - 1];
        if (last && last.role === role)
            last.content.push(...blocks);
        else
            turns.push({ role, content: blocks });
    };
    for (const m of messages) {
        if (m.role === 'system')
            system.push(m.content);
        else if (m.role === 'user')
            push('user', [{ type: 'text', text: m.content }]);
        else if (m.role === 'tool') {
            push('user', [
                {
                    type: 'tool_result',
                    tool_use_id: m.toolCallId,
                    content: m.content,
                    ...(m.isError ? { is_error: true } : {}),
                },
            ]);
        }
        else {
            const blocks = m.content ? [{ type: 'text', text: m.content }] : [];
            for (const c of m.toolCalls ?? [])
                blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: inputObject(c) });
            if (blocks.length)
                push('assistant', blocks);
        }
    }
    return { system: system.join('\n\n'), messages: turns };
}
export function toAnthropicTools(tools) {
    return tools.map((t) => ({
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        // The protocol requires a schema; a definition without one gets the empty object schema.
        input_schema: t.parameters ?? { type: 'object', properties: {} },
    }));
}
export function fromAnthropicResponse(res) {
    const r = res;
    if (!r || !Array.isArray(r.content))
        return { kind: 'provider_error', code: 'bad_response', message: 'the answer has no content list' };
    const calls = [];
    const texts = [];
    for (const b of r.content) {
        if (b.type === 'tool_use') {
            if (typeof b.name !== 'string')
                return { kind: 'provider_error', code: 'bad_response', message: 'a tool_use block without a name' };
            calls.push({ id: typeof b.id === 'string' ? b.id : null, name: b.name, arguments: b.input });
        }
        else if (b.type === 'text' && typeof b.text === 'string')
            texts.push(b.text);
    }
    const text = texts.join('');
    if (calls.length)
        return { kind: 'tool_calls', calls, ...(text ? { text } : {}) };
    if (r.stop_reason === 'refusal')
        return { kind: 'refusal', text: text || null };
    return { kind: 'text', text };
}
export const createAnthropicMessagesAdapter = (spec, opts) => {
    const client = new Anthropic({
        baseURL: (spec.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/v1\/?$/, ''),
        apiKey: opts.apiKey ?? 'no-key',
        maxRetries: 0,
        timeout: opts.timeoutMs,
        openTelemetry: false,
    });
    const now = opts.now ?? Date.now;
    /** stream: true — the events assembled (messages-stream.ts), recorded as `{events, truncated}`. */
    const streamed = async (plain) => {
        const body = { ...plain, stream: true };
        const r = await sendWithRetries(async () => assembleMessageStream((await client.messages.create(body))), Anthropic, body, {
            retry: opts.retry,
            now,
            read: (res) => {
                const a = res;
                const outcome = fromAnthropicResponse(a.response);
                const u = a.response.usage;
                return {
                    // Cut off with no call to count: no answer at all, not a text answer.
                    outcome: a.response.truncated && outcome.kind !== 'tool_calls'
                        ? { kind: 'provider_error', code: 'connection', message: 'the stream was cut off before message_stop' }
                        : outcome,
                    ...(u ? { usage: { inputTokens: u.input_tokens, outputTokens: u.output_tokens } } : {}),
                };
            },
        });
        // An answer: its events and whether it was cut; a failure keeps its own record (status, body, events).
        const a = r.response;
        return a?.response && Array.isArray(a.events)
            ? { ...r, response: { events: a.events, truncated: a.response.truncated } }
            : r;
    };
    return {
        provider: spec.provider,
        model: spec.model,
        async complete(req) {
            let body;
            try {
                const { system, messages } = toAnthropicMessages(req.messages);
                body = {
                    model: spec.model,
                    max_tokens: req.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
                    ...(system ? { system } : {}),
                    messages,
                    ...(req.tools.length
                        ? { tools: toAnthropicTools(req.tools), tool_choice: anthropicToolChoice(req.toolChoice ?? 'auto') }
                        : {}),
                    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
                    ...spec.params,
                };
            }
            catch (err) {
                const outcome = { kind: 'provider_error', code: 'harness', message: err.message };
                return { outcome, request: null, response: null, latencyMs: 0, attempts: 0 };
            }
            if (spec.stream)
                return streamed(body);
            return sendWithRetries(() => client.messages.create(body), Anthropic, body, {
                retry: opts.retry,
                now,
                read: (res) => ({ outcome: fromAnthropicResponse(res), ...inputOutputUsage(res) }),
            });
        },
    };
};
//# sourceMappingURL=anthropic-messages.js.map