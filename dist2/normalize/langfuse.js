import { textStatus } from './exec-status.js';
import { assistantText, firstUserText, proposalsOf, readMessages, replaysOf } from './messages.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { isRecord, jsonValue, resultText, toToolArgs } from '../util/values.js';
const DIALECT = 'langfuse';
/** Raw JSON strings (v2) are parsed; a string that is not JSON stays text (a plain prompt). */
function value(v) {
    if (typeof v !== 'string')
        return v;
    const parsed = jsonValue(v);
    return parsed === undefined ? v : parsed;
}
const timeMs = (s) => {
    const t = s ? Date.parse(s) : NaN;
    return Number.isFinite(t) ? t : 0;
};
const nonEmpty = (v) => (typeof v === 'string' && v !== '' ? v : undefined);
const CALL_ID_KEYS = ['tool_call_id', 'toolCallId', 'call_id', 'callId', 'gen_ai.tool.call.id'];
/**
 * The top-level metadata keys read here. Langfuse's v2 observations cut every metadata value over 200
 * characters unless its key is named in `expandMetadata` (an OTel resource's attributes easily are).
 */
export const METADATA_KEYS_READ = ['resourceAttributes', 'service.name', 'service', ...CALL_ID_KEYS];
/** Metadata may be a JSON string too; OTel-ingested traces keep resource attributes there. */
function serviceOf(metadata, fallback) {
    const m = value(metadata);
    if (!isRecord(m))
        return fallback;
    const res = value(m['resourceAttributes']);
    return (nonEmpty(isRecord(res) ? res['service.name'] : undefined) ??
        nonEmpty(m['service.name']) ??
        nonEmpty(m['service']) ??
        fallback);
}
const LANGCHAIN_ROLES = {
    human: 'user',
    ai: 'assistant',
    system: 'system',
    tool: 'tool',
    function: 'function',
};
/**
 * A LangChain message ({type|role, content, additional_kwargs.tool_calls, tool_calls[{name,args,id}]})
 * in the OpenAI shape messages.ts reads. `additional_kwargs.tool_calls` is preferred: it holds the
 * model's raw argument string (so InvalidJson is detectable); LangChain's parsed `tool_calls` (and
 * `invalid_tool_calls`, the ones that did not parse) repeat the same calls and must not be read as well.
 */
function fromLangChain(m) {
    const kw = isRecord(m['additional_kwargs']) ? m['additional_kwargs'] : undefined;
    const raw = kw?.['tool_calls'];
    const parsed = m['tool_calls'];
    const out = { ...m };
    const role = nonEmpty(m['role']) ?? LANGCHAIN_ROLES[String(m['type'])];
    if (role !== undefined)
        out['role'] = role;
    if (Array.isArray(raw) && raw.length > 0)
        out['tool_calls'] = raw;
    else if (Array.isArray(parsed)) {
        // A call whose arguments were not JSON is moved to `invalid_tool_calls` with the raw string: the InvalidJson one.
        const invalid = Array.isArray(m['invalid_tool_calls']) ? m['invalid_tool_calls'] : [];
        out['tool_calls'] = [...parsed, ...invalid].map((tc) => isRecord(tc) && tc['function'] === undefined && tc['arguments'] === undefined
            ? { id: tc['id'], function: { name: tc['name'], arguments: tc['args'] } }
            : tc);
    }
    if (kw && isRecord(kw['function_call']) && out['function_call'] === undefined)
        out['function_call'] = kw['function_call'];
    if (role === 'tool' && out['tool_call_id'] === undefined && m['tool_call_id'] !== undefined)
        out['tool_call_id'] = m['tool_call_id'];
    return out;
}
/** A list of message-like items: messages, Responses API items, Anthropic blocks, LangChain messages. */
function messagesOf(list) {
    // A bare list of Anthropic content blocks (no role anywhere) is one assistant message.
    if (list.length > 0 &&
        list.every((x) => isRecord(x) && x['role'] === undefined && (x['type'] === 'text' || x['type'] === 'tool_use'))) {
        return readMessages([{ role: 'assistant', content: list }]);
    }
    const items = list.map((x) => isRecord(x) &&
        (x['additional_kwargs'] !== undefined || (x['role'] === undefined && LANGCHAIN_ROLES[String(x['type'])]))
        ? fromLangChain(x)
        : x);
    return readMessages(items);
}
/**
 * The messages in a generation's input or output, whatever wraps them: also used for the raw
 * provider payloads other dialects carry (MLflow span inputs/outputs, OpenInference `output.value`).
 */
export function messagesIn(v) {
    if (typeof v === 'string')
        return [{ role: 'user', texts: [v], calls: [], results: [] }];
    if (Array.isArray(v))
        return messagesOf(v);
    if (!isRecord(v))
        return [];
    // OpenAI chat request {messages, tools}; Responses API request {input, tools} / response {output}.
    for (const key of ['messages', 'input', 'output']) {
        const inner = v[key];
        if (Array.isArray(inner))
            return messagesOf(inner);
        if (key === 'input' && typeof inner === 'string')
            return messagesIn(inner);
    }
    // LangChain generations {generations:[[{message}]]}: the first candidate.
    const gens = v['generations'];
    if (Array.isArray(gens)) {
        const first = Array.isArray(gens[0]) ? gens[0][0] : gens[0];
        if (isRecord(first) && isRecord(first['message']))
            return messagesOf([first['message']]);
    }
    if (v['choices'] !== undefined)
        return readMessages(v);
    return messagesOf([v]);
}
/**
 * Langfuse's Python LangChain callback appends each offered tool to the generation's input as a
 * message `{role: "tool", content: {type: "function", function: {name, description, parameters}}}`.
 */
function definitionMessages(list) {
    const defs = [];
    for (const m of list) {
        if (!isRecord(m) || m['role'] !== 'tool')
            continue;
        const c = m['content'];
        if (!isRecord(c))
            continue;
        if (isRecord(c['function']) || (typeof c['name'] === 'string' && c['parameters'] !== undefined))
            defs.push(c);
    }
    return defs;
}
/**
 * Tools offered in the request: `input.tools` in any definition shape (OpenAI, flat/Responses,
 * Anthropic), else definitions carried as messages.
 */
export function offeredIn(input) {
    const messages = isRecord(input) ? input['messages'] : undefined;
    const list = Array.isArray(input) ? input : Array.isArray(messages) ? messages : undefined;
    if (!isRecord(input))
        return list === undefined ? undefined : nonEmptyDefs(definitionMessages(list));
    const tools = input['tools'] ?? (isRecord(input['invocation_params']) ? input['invocation_params']['tools'] : undefined);
    if (tools !== undefined)
        return parseToolDefs(value(tools));
    return list === undefined ? undefined : nonEmptyDefs(definitionMessages(list));
}
function nonEmptyDefs(defs) {
    return defs.length === 0 ? undefined : parseToolDefs(defs);
}
function tokens(o, f) {
    const d = o.usageDetails ?? undefined;
    const inTok = d?.['input'] ?? d?.['prompt_tokens'] ?? d?.['input_tokens'] ?? o.usage?.input ?? undefined;
    const outTok = d?.['output'] ?? d?.['completion_tokens'] ?? d?.['output_tokens'] ?? o.usage?.output ?? undefined;
    if (typeof inTok === 'number' && Number.isFinite(inTok))
        f.inputTokens = inTok;
    if (typeof outTok === 'number' && Number.isFinite(outTok))
        f.outputTokens = outTok;
}
const ARG_KEYS = ['arguments', 'args', 'input', 'tool_input'];
function callIdIn(v) {
    if (!isRecord(v))
        return undefined;
    for (const k of CALL_ID_KEYS) {
        const id = nonEmpty(v[k]);
        if (id !== undefined)
            return id;
    }
    return undefined;
}
/**
 * A TOOL observation. The call id is looked up in metadata, then in the input; when the input is an
 * envelope carrying the id, the arguments are its `arguments`/`args`/`input` member.
 */
function toolExecution(o, metadata, input, output, durationMs) {
    const idInInput = callIdIn(input);
    const callId = callIdIn(metadata) ?? idInInput;
    // Parsed: v2 sends the input JSON-encoded, so a string argument arrives double-encoded.
    let args = input;
    if (idInInput !== undefined && isRecord(input)) {
        const key = ARG_KEYS.find((k) => input[k] !== undefined);
        args = key === undefined ? undefined : input[key];
    }
    const r = resultText(output);
    // level ERROR + statusMessage is all Langfuse keeps of a failure: the message (else the output) may say how.
    const failed = o.level === 'ERROR';
    const status = failed ? (textStatus(o.statusMessage ?? undefined) ?? textStatus(r) ?? 'error') : 'ok';
    const e = { name: o.name ?? '', args: toToolArgs(args), status, durationMs };
    if (callId !== undefined)
        e.callId = callId;
    if (failed)
        e.errorType = o.statusMessage || 'error';
    if (r !== undefined)
        e.result = r;
    return e;
}
/**
 * One observation → facts; undefined for types that carry nothing about models or tools
 * (SPAN, EVENT, …). Never throws: hostile input yields bare facts.
 */
export function observationToFacts(o, opts) {
    const type = String(o.type ?? '').toUpperCase();
    const role = type === 'GENERATION'
        ? 'model'
        : type === 'TOOL'
            ? 'tool'
            : type === 'AGENT' || type === 'CHAIN'
                ? 'agent'
                : undefined;
    if (role === undefined || typeof o.id !== 'string' || o.id === '')
        return undefined;
    const start = timeMs(o.startTime);
    const end = timeMs(o.endTime) || start;
    const f = {
        dialect: DIALECT,
        // An observation without a trace is its own trace, so its calls still have a stable key.
        traceId: nonEmpty(o.traceId) ?? o.id,
        spanId: o.id,
        parentSpanId: o.parentObservationId ?? '',
        service: serviceOf(o.metadata, opts.service),
        startTimeMs: start,
        endTimeMs: end,
        role,
        proposals: [],
        replays: [],
    };
    try {
        const input = value(o.input);
        const output = value(o.output);
        if (role === 'tool') {
            f.execution = toolExecution(o, value(o.metadata), input, output, Math.max(0, end - start));
            return f;
        }
        const model = o.providedModelName || o.model;
        if (model)
            f.model = model;
        if (o.level === 'ERROR')
            f.error = o.statusMessage || 'error';
        const inMsgs = messagesIn(input);
        const outMsgs = messagesIn(output);
        if (role === 'model') {
            tokens(o, f);
            const offered = offeredIn(input);
            if (offered !== undefined)
                f.offered = offered;
            f.proposals = proposalsOf(outMsgs);
            f.replays = replaysOf(inMsgs);
        }
        const user = firstUserText(inMsgs);
        if (user !== undefined)
            f.userMessage = user;
        const text = assistantText(outMsgs);
        if (text !== undefined)
            f.outputText = text;
    }
    catch {
        // A shape we failed to read must not take the page down: the observation's identity stays.
        f.proposals = [];
        f.replays = [];
    }
    return f;
}
//# sourceMappingURL=langfuse.js.map