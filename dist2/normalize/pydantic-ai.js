import { baseFacts, lazyFact } from './facts.js';
import { genAiRole, readGenAi, readGenAiCommon } from './genai.js';
import { firstUserText, proposalsOf, readMessages } from './messages.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { isRecord, jsonValue, num, str } from '../util/values.js';
function requestDefinitions(a) {
    const p = jsonValue(a['model_request_parameters']);
    if (!isRecord(p))
        return undefined;
    const tools = [p['function_tools'], p['output_tools']].flatMap((l) => (Array.isArray(l) ? l : []));
    return tools.length === 0 ? undefined : parseToolDefs(tools);
}
/** Version-1 event lists: the `gen_ai.choice` events are the model's output. */
function choiceEvents(v) {
    const list = jsonValue(v);
    if (!Array.isArray(list))
        return [];
    return readMessages(list.filter((e) => isRecord(e) && e['event.name'] === 'gen_ai.choice'));
}
/** The agent-run messages from `new_message_index` on (all of them when it is absent). */
function runMessages(a) {
    const v2 = jsonValue(a['pydantic_ai.all_messages']);
    if (Array.isArray(v2)) {
        const from = Math.max(0, Math.floor(num(a, 'pydantic_ai.new_message_index') ?? 0));
        return { fresh: readMessages(v2.slice(from)), all: readMessages(v2) };
    }
    const v1 = choiceEvents(a['all_messages_events']);
    return { fresh: v1, all: v1 };
}
function readRun(span) {
    const a = span.attributes;
    const f = baseFacts(span, 'pydantic-ai', 'agent');
    readGenAiCommon(a, f);
    f.model ??= str(a, 'model_name');
    const { fresh, all } = runMessages(a);
    const calls = proposalsOf(fresh.filter((m) => m.role === undefined || m.role === 'assistant'));
    if (calls.length > 0)
        f.summaryCalls = calls;
    lazyFact(f, 'userMessage', () => firstUserText(all));
    return f;
}
export const pydanticAiReader = {
    name: 'pydantic-ai',
    matches(span) {
        const a = span.attributes;
        return (a['pydantic_ai.all_messages'] !== undefined ||
            a['all_messages_events'] !== undefined ||
            a['model_request_parameters'] !== undefined);
    },
    read(span) {
        const a = span.attributes;
        if (a['model_request_parameters'] === undefined)
            return readRun(span);
        const f = readGenAi(span, 'pydantic-ai', genAiRole(a));
        f.offered ??= requestDefinitions(a);
        if (f.role === 'model' && f.proposals.length === 0 && a['events'] !== undefined) {
            f.proposals = proposalsOf(choiceEvents(a['events']));
        }
        return f;
    },
};
//# sourceMappingURL=pydantic-ai.js.map