import { lazyFact } from './facts.js';
import { genAiRole, readGenAi } from './genai.js';
import { assistantText, firstUserText, proposalsOf, readMessage, readMessages, replaysOf } from './messages.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { isRecord, jsonValue } from '../util/values.js';
function requestMessages(a) {
    const req = jsonValue(a['request_data']);
    return isRecord(req) ? req['messages'] : undefined;
}
function requestTools(a) {
    const req = jsonValue(a['request_data']);
    return isRecord(req) && Array.isArray(req['tools']) ? parseToolDefs(req['tools']) : undefined;
}
/** The response message of `response_data`, read as the assistant's output. */
function responseMessage(a) {
    const res = jsonValue(a['response_data']);
    if (!isRecord(res))
        return undefined;
    return readMessage(res['message'], 'assistant');
}
export const logfireReader = {
    name: 'logfire',
    matches(span) {
        const a = span.attributes;
        return a['request_data'] !== undefined && a['logfire.msg_template'] !== undefined;
    },
    read(span) {
        const a = span.attributes;
        const role = genAiRole(a);
        const f = readGenAi(span, 'logfire', role);
        f.offered ??= requestTools(a);
        if (role !== 'model')
            return f;
        if (f.proposals.length === 0 && f.outputText === undefined) {
            const out = responseMessage(a);
            if (out) {
                f.proposals = proposalsOf([out]);
                const text = assistantText([out]);
                // A streamed tool-call response has `content: ""`: no text, not an empty one.
                if (text)
                    f.outputText = text;
            }
        }
        if (a['gen_ai.input.messages'] === undefined && a['request_data'] !== undefined) {
            let msgs;
            const history = () => (msgs ??= readMessages(requestMessages(a)));
            lazyFact(f, 'replays', () => replaysOf(history()));
            lazyFact(f, 'userMessage', () => firstUserText(history()));
        }
        return f;
    },
};
//# sourceMappingURL=logfire.js.map