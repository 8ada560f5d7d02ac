import { execution, lazyFact } from './facts.js';
import { genAiRole, readGenAi } from './genai.js';
import { assistantText, firstUserText, proposalsOf, readMessages, replaysOf } from './messages.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { argValue, firstAttr, isRecord, jsonValue, str } from '../util/values.js';
const MARKERS = [
    'flue.tool.name',
    'flue.turn.output',
    'flue.turn.input',
    'flue.tool.call.arguments',
    'flue.tool.call.result',
];
function isFlueToolSpan(a) {
    return a['flue.tool.name'] !== undefined || a['flue.tool.call_id'] !== undefined;
}
/** pi-ai's `toolResult` messages → the OpenAI tool-message shape the message reader knows. */
function inputMessages(input) {
    const list = input['messages'];
    if (!Array.isArray(list))
        return [];
    return list.map((m) => isRecord(m) && m['role'] === 'toolResult'
        ? { role: 'tool', tool_call_id: m['toolCallId'], content: m['content'] }
        : m);
}
function fillTool(span, f) {
    const a = span.attributes;
    const e = f.execution;
    const known = e === undefined ? undefined : argValue(e.args);
    f.execution = execution(span, str(a, 'flue.tool.name') ?? e?.name ?? '', str(a, 'flue.tool.call_id') ?? e?.callId, known ?? firstAttr(a, ['flue.tool.arguments', 'flue.tool.call.arguments']), e?.result ?? firstAttr(a, ['flue.tool.result', 'flue.tool.call.result']));
}
function fillModel(span, f) {
    const a = span.attributes;
    const output = jsonValue(a['flue.turn.output']);
    if (f.proposals.length === 0 && output !== undefined) {
        const out = readMessages(output);
        f.proposals = proposalsOf(out);
        f.outputText ??= assistantText(out);
    }
    const input = jsonValue(a['flue.turn.input']);
    if (!isRecord(input))
        return;
    f.offered ??= parseToolDefs(input['tools']);
    if (f.replays.length === 0) {
        let msgs;
        const history = () => (msgs ??= readMessages(inputMessages(input)));
        lazyFact(f, 'replays', () => replaysOf(history()));
        if (f.userMessage === undefined)
            lazyFact(f, 'userMessage', () => firstUserText(history()));
    }
}
export const flueReader = {
    name: 'flue',
    matches(span) {
        // Flue < 2 names every tool span (`flue.tool.name`); Flue 2 puts only non-object payloads in flue.*.
        const a = span.attributes;
        for (const k of MARKERS)
            if (a[k] !== undefined)
                return true;
        return false;
    },
    read(span) {
        const a = span.attributes;
        const role = isFlueToolSpan(a) ? 'tool' : genAiRole(a);
        const f = readGenAi(span, 'flue', role === 'other' && a['flue.turn.output'] !== undefined ? 'model' : role);
        if (f.role === 'tool')
            fillTool(span, f);
        else if (f.role === 'model')
            fillModel(span, f);
        return f;
    },
};
//# sourceMappingURL=flue.js.map