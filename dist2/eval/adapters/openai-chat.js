/**
 * OpenAI-compatible chat completions (OpenAI, vLLM, Ollama, OpenRouter, LiteLLM …) through the
 * official `openai` client. tool_choice "auto" (text or calls, the model decides); `max_tokens` is
 * sent only when the suite sets it (a cut-off answer would show up as InvalidJson, not as a model
 * mistake). Arguments come back as the model's raw string and stay that way.
 */
import OpenAI from 'openai';
import { openAIToolChoice } from '../tool-choice.js';
import { assembleStream } from './chat-stream.js';
import { sendWithRetries } from './sdk-errors.js';
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
const argsText = (v) => (typeof v === 'string' ? v : JSON.stringify(v ?? {}));
export function toOpenAIMessages(messages) {
    return messages.map((m) => {
        if (m.role === 'assistant') {
            return {
                role: 'assistant',
                content: m.content,
                ...(m.toolCalls?.length
                    ? {
                        tool_calls: m.toolCalls.map((c) => ({
                            id: c.id,
                            type: 'function',
                            function: { name: c.name, arguments: argsText(c.arguments) },
                        })),
                    }
                    : {}),
            };
        }
        if (m.role === 'tool')
            return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
        return { role: m.role, content: m.content };
    });
}
export function toOpenAITools(tools) {
    return tools.map((t) => ({
        type: 'function',
        function: {
            name: t.name,
            ...(t.description ? { description: t.description } : {}),
            ...(t.parameters !== undefined ? { parameters: t.parameters } : {}),
        },
    }));
}
/** The first choice → the canonical outcome. */
export function fromOpenAIResponse(res) {
    const choice = res?.choices?.[0];
    const msg = choice?.message;
    if (!msg)
        return { kind: 'provider_error', code: 'bad_response', message: 'the answer has no choices[0].message' };
    const calls = [];
    for (const tc of msg.tool_calls ?? []) {
        const fn = tc.function ?? (tc.custom ? { name: tc.custom.name, arguments: tc.custom.input } : undefined);
        if (!fn || typeof fn.name !== 'string')
            return { kind: 'provider_error', code: 'bad_response', message: 'a tool call without a function name' };
        calls.push({ id: tc.id ?? null, name: fn.name, arguments: fn.arguments });
    }
    const text = typeof msg.content === 'string' ? msg.content : '';
    if (calls.length)
        return { kind: 'tool_calls', calls, ...(text ? { text } : {}) };
    if (msg.refusal)
        return { kind: 'refusal', text: msg.refusal };
    return { kind: 'text', text };
}
/**
 * The SDK client both OpenAI adapters (chat completions, Responses) use: our own retry loop
 * (sendWithRetries) instead of the SDK's, the run's timeout, and no organization or project headers
 * from the environment.
 */
export function openAIClient(spec, opts) {
    return new OpenAI({
        baseURL: spec.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
        // Local servers (vLLM, Ollama) take any key; the SDK insists on one.
        apiKey: opts.apiKey ?? 'no-key',
        organization: null,
        project: null,
        maxRetries: 0,
        timeout: opts.timeoutMs,
    });
}
export const createOpenAIChatAdapter = (spec, opts) => {
    const client = openAIClient(spec, opts);
    const now = opts.now ?? Date.now;
    /** stream: true — the chunks assembled (chat-stream.ts), recorded as `{chunks, truncated}`. */
    const streamed = async (plain) => {
        const body = { ...plain, stream: true, stream_options: { include_usage: true } };
        const r = await sendWithRetries(async () => assembleStream((await client.chat.completions.create(body))), OpenAI, body, {
            retry: opts.retry,
            now,
            read: (res) => {
                const a = res;
                const usage = a.response.usage;
                const outcome = fromOpenAIResponse(a.response);
                return {
                    // Cut off with no call to count: no answer at all, not a text answer.
                    outcome: a.response.truncated && outcome.kind !== 'tool_calls'
                        ? {
                            kind: 'provider_error',
                            code: 'connection',
                            message: 'the stream was cut off before its finish_reason',
                        }
                        : outcome,
                    ...(usage
                        ? { usage: { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 } }
                        : {}),
                };
            },
        });
        const a = r.response;
        return a && Array.isArray(a.chunks) ? { ...r, response: { chunks: a.chunks, truncated: a.response.truncated } } : r;
    };
    return {
        provider: spec.provider,
        model: spec.model,
        async complete(req) {
            const body = {
                model: spec.model,
                messages: toOpenAIMessages(req.messages),
                ...(req.tools.length
                    ? { tools: toOpenAITools(req.tools), tool_choice: openAIToolChoice(req.toolChoice ?? 'auto') }
                    : {}),
                ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
                ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}),
                ...spec.params,
            };
            if (spec.stream)
                return streamed(body);
            return sendWithRetries(() => client.chat.completions.create(body), OpenAI, body, {
                retry: opts.retry,
                now,
                read: (res) => {
                    const usage = res.usage;
                    return {
                        outcome: fromOpenAIResponse(res),
                        ...(usage
                            ? { usage: { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 } }
                            : {}),
                    };
                },
            });
        },
    };
};
//# sourceMappingURL=openai-chat.js.map