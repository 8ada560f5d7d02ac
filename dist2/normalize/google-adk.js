import { baseFacts, execution, lazyFact } from './facts.js';
import { genAiRole, readGenAiCommon } from './genai.js';
import { assistantText, firstUserText, proposalsOf, readMessages, replaysOf } from './messages.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { isRecord, jsonValue, str } from '../util/values.js';
const SYSTEM = 'gcp.vertex.agent';
const REQUEST = 'gcp.vertex.agent.llm_request';
const RESPONSE = 'gcp.vertex.agent.llm_response';
const ARGS = 'gcp.vertex.agent.tool_call_args';
const MERGED = '(merged tools)';
const NO_ID = '<not specified>';
/** ADK writes '{}' for the request and response of tool spans: present, but empty. */
function payload(a, key) {
    const v = jsonValue(a[key]);
    return isRecord(v) && Object.keys(v).length > 0 ? v : undefined;
}
function readTool(span, f) {
    const a = span.attributes;
    const name = str(a, 'gen_ai.tool.name') ?? '';
    if (name === MERGED) {
        f.role = 'other';
        return;
    }
    const id = str(a, 'gen_ai.tool.call.id');
    const args = str(a, ARGS);
    const callId = id === NO_ID ? undefined : id;
    f.execution = execution(span, name, callId, args === 'N/A' ? undefined : args, a['gcp.vertex.agent.tool_response']);
}
function readModel(f, request, response) {
    const config = request?.['config'];
    if (isRecord(config)) {
        const offered = parseToolDefs(config['tools']);
        if (offered !== undefined)
            f.offered = offered;
    }
    const content = response?.['content'];
    if (isRecord(content)) {
        const out = readMessages([content]);
        f.proposals = proposalsOf(out);
        const text = assistantText(out);
        if (text !== undefined)
            f.outputText = text;
    }
    const contents = request?.['contents'];
    if (Array.isArray(contents)) {
        let msgs;
        const history = () => (msgs ??= readMessages(contents));
        lazyFact(f, 'replays', () => replaysOf(history()));
        lazyFact(f, 'userMessage', () => firstUserText(history()));
    }
}
export const googleAdkReader = {
    name: 'google-adk',
    matches(span) {
        const a = span.attributes;
        // ADK writes llm_request on its model and tool spans alike ('{}' on tool spans).
        return a[REQUEST] !== undefined || a['gen_ai.system'] === SYSTEM;
    },
    read(span) {
        const a = span.attributes;
        if (a['gen_ai.operation.name'] === 'execute_tool' || a[ARGS] !== undefined) {
            const f = baseFacts(span, 'google-adk', 'tool');
            readGenAiCommon(a, f);
            readTool(span, f);
            return f;
        }
        const request = payload(a, REQUEST);
        const response = payload(a, RESPONSE);
        const role = request !== undefined || response !== undefined ? 'model' : genAiRole(a);
        const f = baseFacts(span, 'google-adk', role);
        readGenAiCommon(a, f);
        if (role === 'model')
            readModel(f, request, response);
        return f;
    },
};
//# sourceMappingURL=google-adk.js.map