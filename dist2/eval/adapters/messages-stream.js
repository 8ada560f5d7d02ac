/**
 * Streaming Anthropic Messages (`stream: true`): the events assembled as the SDK's MessageStream
 * assembles them — `message_start` gives the message (and input usage), `content_block_start`
 * opens a block at its index, `content_block_delta` appends text (`text_delta`) or argument text
 * (`input_json_delta`), `content_block_stop` closes it (a tool_use input is then parsed from the
 * pieces), `message_delta` sets stop_reason and output usage, `message_stop` ends it — into the
 * message shape a non-streamed answer has, so one reader maps both. The raw events are recorded.
 *
 * A stream that ends before `message_stop` is `truncated`: an unfinished tool_use keeps the
 * argument text that arrived (not the SDK's partial-JSON guess), which the production checker
 * counts InvalidJson, as in production. An `event: error` (overloaded_error mid-answer) is the
 * provider's failure, classified by its type and retried like an HTTP error (sdk-errors.ts).
 */
export async function assembleMessageStream(stream) {
    const events = [];
    const content = [];
    /** Argument text of a tool_use block by index, until its stop. */
    const json = new Map();
    const open = new Set();
    let stop = null;
    let usage;
    let ended = false;
    try {
        for await (const raw of stream) {
            events.push(raw);
            const e = raw;
            const i = e.index ?? 0;
            if (e.type === 'message_start') {
                const u = e.message?.usage;
                if (u)
                    usage = { input_tokens: u.input_tokens ?? 0, output_tokens: u.output_tokens ?? 0 };
            }
            else if (e.type === 'content_block_start' && e.content_block) {
                content[i] = { ...e.content_block };
                open.add(i);
            }
            else if (e.type === 'content_block_delta' && content[i]) {
                const d = e.delta ?? {};
                if (d.type === 'text_delta' && typeof d.text === 'string')
                    content[i].text = (content[i].text ?? '') + d.text;
                else if (d.type === 'input_json_delta' && typeof d.partial_json === 'string')
                    json.set(i, (json.get(i) ?? '') + d.partial_json);
            }
            else if (e.type === 'content_block_stop' && content[i]) {
                open.delete(i);
                const text = json.get(i);
                // No argument text at all: the input the block started with ({}), as the SDK leaves it.
                if (text !== undefined && text !== '') {
                    try {
                        content[i].input = JSON.parse(text);
                    }
                    catch {
                        content[i].input = text;
                    }
                }
            }
            else if (e.type === 'message_delta') {
                if (e.delta?.stop_reason !== undefined)
                    stop = e.delta.stop_reason ?? null;
                if (e.usage) {
                    usage = {
                        input_tokens: e.usage.input_tokens ?? usage?.input_tokens ?? 0,
                        output_tokens: e.usage.output_tokens ?? usage?.output_tokens ?? 0,
                    };
                }
            }
            else if (e.type === 'message_stop')
                ended = true;
        }
    }
    catch (err) {
        // Before any event it is the request's failure; an error event is the provider's, with what came before.
        if (events.length === 0 || isErrorEvent(err)) {
            if (err instanceof Error)
                err.streamEvents = events;
            throw err;
        }
    }
    // A block still open when the stream broke keeps the raw argument text that arrived.
    for (const i of open) {
        const text = json.get(i);
        if (content[i]?.type === 'tool_use' && text !== undefined)
            content[i].input = text;
    }
    return {
        response: {
            content: content.filter(Boolean),
            stop_reason: stop,
            ...(usage ? { usage } : {}),
            truncated: !ended,
        },
        events,
    };
}
/** The SDK raises an `event: error` as an APIError without a status whose body is the error event. */
function isErrorEvent(err) {
    const e = err;
    return !!e && e.status === undefined && e.error?.type === 'error';
}
//# sourceMappingURL=messages-stream.js.map