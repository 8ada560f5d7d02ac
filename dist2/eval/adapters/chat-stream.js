/**
 * Streaming chat completions (`stream: true`, `stream_options.include_usage`): the chunks are
 * assembled as the SDKs assemble them — content and refusal concatenated, tool calls by `index`
 * (id, type and name from their first delta, arguments concatenated) — into the same response
 * shape a non-streamed answer has, so one reader maps both. The raw chunks are recorded. A stream
 * that ends (or breaks) before a `finish_reason` is `truncated`: its calls keep the arguments that
 * arrived, which the production checker then counts InvalidJson, as it would in production.
 */
export async function assembleStream(stream) {
    const chunks = [];
    let content = '';
    let refusal = '';
    let finish = null;
    let usage;
    const calls = [];
    let broken = false;
    try {
        for await (const raw of stream) {
            chunks.push(raw);
            const c = raw;
            if (c.usage)
                usage = c.usage;
            const choice = c.choices?.find((x) => (x.index ?? 0) === 0);
            if (!choice)
                continue;
            const d = choice.delta ?? {};
            if (typeof d.content === 'string')
                content += d.content;
            if (typeof d.refusal === 'string')
                refusal += d.refusal;
            for (const tc of d.tool_calls ?? []) {
                const i = tc.index ?? calls.length;
                const call = (calls[i] ??= { type: 'function', function: { name: '', arguments: '' } });
                if (tc.id)
                    call.id = tc.id;
                if (tc.type)
                    call.type = tc.type;
                if (tc.function?.name)
                    call.function.name += tc.function.name;
                if (typeof tc.function?.arguments === 'string')
                    call.function.arguments += tc.function.arguments;
            }
            if (choice.finish_reason)
                finish = choice.finish_reason;
        }
    }
    catch (err) {
        // Before any chunk it is the request's failure (classified and retried as any other).
        if (chunks.length === 0)
            throw err;
        broken = true;
    }
    const message = {
        role: 'assistant',
        content: content || null,
        refusal: refusal || null,
        ...(calls.length ? { tool_calls: calls.filter(Boolean) } : {}),
    };
    return {
        response: {
            choices: [{ message, finish_reason: finish }],
            ...(usage ? { usage } : {}),
            truncated: broken || finish === null,
        },
        chunks,
    };
}
//# sourceMappingURL=chat-stream.js.map