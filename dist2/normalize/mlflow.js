import { baseFacts, execution, lazyFact } from './facts.js';
import { messagesIn, offeredIn } from './langfuse.js';
import { assistantText, firstUserText, proposalsOf, replaysOf } from './messages.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { isRecord, parseJson } from '../util/values.js';
/** MLflow's encoding undone: JSON when it parses, the raw value otherwise (as MLflow's reader does). */
function decoded(v) {
    if (typeof v !== 'string' || v === '')
        return v;
    const parsed = parseJson(v);
    return parsed === undefined ? v : parsed;
}
const text = (v) => (typeof v === 'string' && v !== '' ? v : undefined);
function roleOf(type) {
    switch (typeof type === 'string' ? type.toUpperCase() : '') {
        case 'CHAT_MODEL':
        case 'LLM':
            return 'model';
        case 'TOOL':
            return 'tool';
        case 'AGENT':
            return 'agent';
        default:
            return 'other';
    }
}
function tokens(a, f) {
    const u = decoded(a['mlflow.chat.tokenUsage']);
    if (!isRecord(u))
        return;
    if (typeof u['input_tokens'] === 'number')
        f.inputTokens = u['input_tokens'];
    if (typeof u['output_tokens'] === 'number')
        f.outputTokens = u['output_tokens'];
}
function readModel(a, f) {
    const inputs = decoded(a['mlflow.spanInputs']);
    const outputs = decoded(a['mlflow.spanOutputs']);
    const modelOf = (v) => (isRecord(v) ? text(v['model']) : undefined);
    const model = text(decoded(a['mlflow.llm.model'])) ?? modelOf(outputs) ?? modelOf(inputs);
    if (model !== undefined)
        f.model = model;
    const provider = text(decoded(a['mlflow.llm.provider']));
    if (provider !== undefined)
        f.provider = provider;
    tokens(a, f);
    const offered = parseToolDefs(decoded(a['mlflow.chat.tools'])) ?? offeredIn(inputs);
    if (offered !== undefined)
        f.offered = offered;
    const out = outputs === undefined ? [] : messagesIn(outputs);
    f.proposals = proposalsOf(out);
    const answer = assistantText(out);
    if (answer !== undefined)
        f.outputText = answer;
    if (inputs !== undefined) {
        let msgs;
        const history = () => (msgs ??= messagesIn(inputs));
        lazyFact(f, 'replays', () => replaysOf(history()));
        lazyFact(f, 'userMessage', () => firstUserText(history()));
    }
}
export const mlflowReader = {
    name: 'mlflow',
    matches(span) {
        return typeof span.attributes['mlflow.spanType'] === 'string';
    },
    read(span) {
        const a = span.attributes;
        const role = roleOf(decoded(a['mlflow.spanType']));
        const f = baseFacts(span, 'mlflow', role);
        if (role === 'model')
            readModel(a, f);
        else if (role === 'tool') {
            const name = text(decoded(a['mlflow.spanFunctionName'])) ?? span.name;
            f.execution = execution(span, name, undefined, decoded(a['mlflow.spanInputs']), decoded(a['mlflow.spanOutputs']));
        }
        return f;
    },
};
//# sourceMappingURL=mlflow.js.map