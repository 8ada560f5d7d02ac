import { textStatus } from './exec-status.js';
import { baseFacts, execution, lazyFact } from './facts.js';
import { genaiReader } from './genai.js';
import { genaiLegacyReader } from './genai-legacy.js';
import { firstUserText, proposalsOf, readMessages, replaysOf } from './messages.js';
import { field, isRecord, jsonValue, str } from '../util/values.js';
const either = (a, key) => a[`lk.pii.${key}`] ?? a[`lk.${key}`];
function isToolSpan(a) {
    return a['lk.function_tool.name'] !== undefined || a['lk.function_tool.id'] !== undefined;
}
function functionCalls(v) {
    const list = jsonValue(v);
    if (!Array.isArray(list))
        return [];
    const calls = [];
    for (const c of list) {
        if (!isRecord(c))
            continue;
        const name = field(c, 'name');
        if (name === undefined)
            continue;
        const call = { name, args: c['arguments'] };
        const id = field(c, 'call_id');
        if (id !== undefined)
            call.id = id;
        calls.push(call);
    }
    return [{ role: 'assistant', texts: [], calls, results: [] }];
}
/** chat_ctx items in the OpenAI Responses item shape the message reader knows. */
function chatItems(v) {
    const ctx = jsonValue(v);
    const items = isRecord(ctx) ? ctx['items'] : undefined;
    if (!Array.isArray(items))
        return [];
    return readMessages(items.map((it) => {
        if (!isRecord(it))
            return it;
        if (it['type'] === 'function_call' || it['type'] === 'function_call_output')
            return it;
        const content = it['content'];
        const text = Array.isArray(content) ? content.filter((c) => typeof c === 'string').join('\n') : content;
        return { role: it['role'], content: text };
    }));
}
function offeredNames(v) {
    if (!Array.isArray(v))
        return undefined;
    const names = v.filter((n) => typeof n === 'string' && n !== '');
    return names.length === 0 ? undefined : names.map((name) => ({ name }));
}
function readTool(span) {
    const a = span.attributes;
    const f = baseFacts(span, 'livekit', 'tool');
    const name = str(a, 'lk.function_tool.name') ?? '';
    const id = str(a, 'lk.function_tool.id');
    const e = execution(span, name, id, either(a, 'function_tool.arguments'), either(a, 'function_tool.output'));
    // LiveKit puts the tool's exception text in its output and flags it: the text may say how it failed.
    if (a['lk.function_tool.is_error'] === true && e.status === 'ok') {
        e.status = textStatus(e.result) ?? 'error';
        e.errorType = 'tool error';
    }
    f.execution = e;
    return f;
}
function readRequest(span) {
    const f = genaiLegacyReader.matches(span) ? genaiLegacyReader.read(span) : genaiReader.read(span);
    f.dialect = 'livekit';
    if (f.proposals.length > 0) {
        f.summaryCalls = f.proposals;
        f.proposals = [];
    }
    return f;
}
export const livekitReader = {
    name: 'livekit',
    matches(span) {
        // Each span kind has one key LiveKit always writes (few lookups: this runs for every span).
        const a = span.attributes;
        return (a['lk.function_tools'] !== undefined ||
            a['lk.function_tool.name'] !== undefined ||
            a['lk.llm_metrics'] !== undefined);
    },
    read(span) {
        const a = span.attributes;
        if (isToolSpan(a))
            return readTool(span);
        const isRequest = a['lk.llm_metrics'] !== undefined && either(a, 'response.function_calls') === undefined;
        if (isRequest)
            return readRequest(span);
        const f = baseFacts(span, 'livekit', 'model');
        const model = str(a, 'gen_ai.request.model');
        if (model !== undefined)
            f.model = model;
        const provider = str(a, 'gen_ai.provider.name');
        if (provider !== undefined)
            f.provider = provider;
        const offered = offeredNames(a['lk.function_tools']);
        if (offered !== undefined)
            f.offered = offered;
        f.proposals = proposalsOf(functionCalls(either(a, 'response.function_calls')));
        const text = either(a, 'response.text');
        if (typeof text === 'string' && text !== '')
            f.outputText = text;
        const ctx = either(a, 'chat_ctx');
        if (ctx !== undefined) {
            let msgs;
            const history = () => (msgs ??= chatItems(ctx));
            lazyFact(f, 'replays', () => replaysOf(history()));
            lazyFact(f, 'userMessage', () => firstUserText(history()));
        }
        return f;
    },
};
//# sourceMappingURL=livekit.js.map