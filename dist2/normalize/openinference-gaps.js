import { looksLikeSchema } from '../tools/schema-shape.js';
import { messagesIn } from './langfuse.js';
import { proposalsOf } from './messages.js';
import { parseToolDefs, toToolDef } from '../tools/tooldefs.js';
import { isRecord, jsonValue, str } from '../util/values.js';
/** BeeAI tool event spans: only the terminal ones (success, error) stand for the execution. */
const BEEAI_EVENTS = new Set(['start', 'success', 'error', 'finish', 'retry']);
const BEEAI_TERMINAL = new Set(['success', 'error']);
/** `{args: [], kwargs: {…}}` of a wrapped Python call (LlamaIndex `FunctionTool.call`) → its keyword arguments. */
function unwrapBoundArguments(v) {
    const parsed = jsonValue(v);
    if (!isRecord(parsed))
        return v;
    const keys = Object.keys(parsed);
    if (keys.length === 0 || !keys.every((k) => k === 'args' || k === 'kwargs'))
        return v;
    const args = parsed['args'];
    const kwargs = parsed['kwargs'];
    if (Array.isArray(args) && args.length > 0)
        return v;
    return isRecord(kwargs) ? kwargs : {};
}
/** The name BeeAI's tool event spans imply: `tool.search.wikipedia.success` → `search.wikipedia`. */
function beeaiToolName(target, event) {
    if (target === undefined || !target.endsWith(`.${event}`))
        return undefined;
    const base = target.slice(0, -event.length - 1);
    return base.startsWith('tool.') ? base.slice('tool.'.length) : base;
}
export function readToolSpan(span) {
    const a = span.attributes;
    const beeaiEvent = str(a, 'name');
    const target = str(a, 'target');
    const isBeeaiEvent = target !== undefined && beeaiEvent !== undefined && BEEAI_EVENTS.has(beeaiEvent);
    const name = str(a, 'tool.name') ??
        str(a, 'tool_call.function.name') ??
        (isBeeaiEvent ? beeaiToolName(target, beeaiEvent) : undefined) ??
        span.name;
    const params = a['tool.parameters'];
    const paramsValue = jsonValue(params);
    const paramsAreSchema = looksLikeSchema(paramsValue);
    let args = a['input.value'] ?? a['tool_call.function.arguments'];
    const paramsAreArgs = params !== undefined && params !== null && !paramsAreSchema && paramsValue !== null;
    if (args === undefined && paramsAreArgs)
        args = params;
    // ADK leaves empty arguments out of the OpenInference keys; its own attribute keeps them ('N/A' on merged spans).
    const adkArgs = str(a, 'gcp.vertex.agent.tool_call_args');
    if (args === undefined && adkArgs !== undefined && adkArgs !== 'N/A')
        args = adkArgs;
    const isHandoff = span.name.startsWith('handoff to ') && a['tool.name'] === undefined;
    const reading = {
        isExecution: !isHandoff && (!isBeeaiEvent || BEEAI_TERMINAL.has(beeaiEvent)),
        name,
        args: unwrapBoundArguments(args),
    };
    if (isBeeaiEvent && beeaiEvent === 'error')
        reading.failed = true;
    const callId = str(a, 'tool_call.id') ?? str(a, 'tool.id') ?? str(a, 'gen_ai.tool.call.id');
    if (callId !== undefined && callId !== '<not specified>')
        reading.callId = callId;
    if (paramsAreSchema) {
        const def = toToolDef({ name, description: a['tool.description'], parameters: paramsValue });
        if (def)
            reading.definition = def;
    }
    return reading;
}
/** Definitions carried only in `llm.invocation_parameters` (`tools`, or the pre-tools `functions`). */
export function invocationDefinitions(a) {
    const params = jsonValue(a['llm.invocation_parameters']);
    if (!isRecord(params))
        return undefined;
    const list = params['tools'] ?? params['functions'];
    return Array.isArray(list) ? parseToolDefs(list) : undefined;
}
/** Proposals in `output.value` when it holds a raw provider response (Agno's LLM spans). */
export function outputValueProposals(a) {
    const v = jsonValue(a['output.value']);
    if (!isRecord(v) && !Array.isArray(v))
        return [];
    return proposalsOf(messagesIn(v));
}
/**
 * Google ADK: proposals from the OpenInference keys lack `{}` arguments (and the id ADK assigns
 * later); ADK's own `gcp.vertex.agent.llm_response` has the model's function calls whole. Each
 * proposal without arguments takes them from the ADK call at the same position with the same name.
 */
export function fillAdkArguments(a, f) {
    if (!f.proposals.some((p) => p.args.kind === 'none'))
        return;
    const response = jsonValue(a['gcp.vertex.agent.llm_response']);
    if (!isRecord(response))
        return;
    const adk = proposalsOf(messagesIn(response['content'] === undefined ? response : [response['content']]));
    f.proposals = f.proposals.map((p, i) => {
        const match = adk[i]?.name === p.name ? adk[i] : undefined;
        if (p.args.kind !== 'none' || match === undefined || match.args.kind === 'none')
            return p;
        const filled = { ...p, args: match.args };
        if (filled.callId === undefined && match.callId !== undefined)
            filled.callId = match.callId;
        return filled;
    });
}
/** The message of each prompt's first generation in a LangChain `LLMResult` (serialised `lc` constructors unwrapped). */
function firstGenerations(v) {
    const gens = isRecord(v) ? v['generations'] : undefined;
    if (!Array.isArray(gens))
        return [];
    const out = [];
    for (const g of gens) {
        const first = Array.isArray(g) ? g[0] : g;
        const m = isRecord(first) ? first['message'] : undefined;
        if (!isRecord(m))
            continue;
        out.push(isRecord(m['kwargs']) ? m['kwargs'] : m);
    }
    return out;
}
/**
 * LangChain (LangGraph) via OpenInference: the `invalid_tool_calls` of `output.value`, appended to the
 * flattened proposals unless a proposal with the same id is already there. The text is searched
 * first, so the (large) result is parsed only on spans that have such a call.
 */
export function addLangChainInvalidCalls(a, f) {
    const raw = a['output.value'];
    if (typeof raw !== 'string' || !raw.includes('invalid_tool_call'))
        return;
    const seen = new Set(f.proposals.map((p) => p.callId));
    const calls = [];
    for (const m of firstGenerations(jsonValue(raw))) {
        const list = m['invalid_tool_calls'];
        if (!Array.isArray(list))
            continue;
        for (const tc of list) {
            if (!isRecord(tc) || typeof tc['name'] !== 'string' || tc['name'] === '')
                continue;
            const id = typeof tc['id'] === 'string' && tc['id'] !== '' ? tc['id'] : undefined;
            if (id !== undefined && seen.has(id))
                continue;
            calls.push(id === undefined ? { name: tc['name'], args: tc['args'] } : { id, name: tc['name'], args: tc['args'] });
        }
    }
    if (calls.length === 0)
        return;
    const base = f.proposals.length;
    const added = proposalsOf([{ role: 'assistant', texts: [], calls, results: [] }]).map((p) => ({
        ...p,
        index: base + p.index,
    }));
    f.proposals = [...f.proposals, ...added];
}
//# sourceMappingURL=openinference-gaps.js.map