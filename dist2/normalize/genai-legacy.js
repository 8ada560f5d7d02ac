import { execution } from './facts.js';
import { genAiRole, readGenAi, writesToolSchemas } from './genai.js';
import { groupIndexed, gstr } from './indexed.js';
import { assistantText, blockList, emptyMsg, firstUserText, proposalsOf, readMessage, readMessages, replaysOf, } from './messages.js';
import { toToolDef } from '../tools/tooldefs.js';
import { isRecord, jsonValue, str } from '../util/values.js';
/** v1.28 message events carry the role in the event name. */
const INPUT_EVENT_ROLES = new Map([
    ['gen_ai.system.message', 'system'],
    ['gen_ai.user.message', 'user'],
    ['gen_ai.assistant.message', 'assistant'],
    ['gen_ai.tool.message', 'tool'],
]);
/** v1.26 content events put the whole JSON in an attribute named like the old span attributes. */
const CONTENT_EVENT_ATTR = new Map([
    ['gen_ai.content.prompt', 'gen_ai.prompt'],
    ['gen_ai.content.completion', 'gen_ai.completion'],
]);
/**
 * Exact keys that every OpenLLMetry numbered message/function list has at index 0. Probing them is
 * O(1), where scanning all keys would cost every current-GenAI span a full pass on the hot path.
 */
const NUMBERED_PROBES = ['gen_ai.prompt.0.', 'gen_ai.completion.0.'].flatMap((p) => ['role', 'content', 'finish_reason', 'tool_calls.0.name', 'tool_calls.0.id', 'function_call.name'].map((k) => p + k));
NUMBERED_PROBES.push('llm.request.functions.0.name');
function isLegacyEvent(name) {
    return name === 'gen_ai.choice' || INPUT_EVENT_ROLES.has(name) || CONTENT_EVENT_ATTR.has(name);
}
function hasNumberedKeys(a) {
    for (const k of NUMBERED_PROBES)
        if (a[k] !== undefined)
            return true;
    return false;
}
function legacyRole(span) {
    const a = span.attributes;
    const kind = str(a, 'traceloop.span.kind');
    if (kind !== undefined)
        return kind === 'tool' ? 'tool' : kind === 'workflow' || kind === 'agent' ? 'agent' : 'other';
    const type = str(a, 'llm.request.type');
    if (type === 'embedding' || type === 'rerank')
        return 'other';
    // Anything else that made matches() true is a model request in old clothes.
    return 'model';
}
/**
 * Event body: in a `body`-like attribute (JSON or structured; Semantic Kernel .NET writes
 * `gen_ai.event.content`), or flattened into the attributes. Strands writes a message's `content` as
 * a JSON list of content blocks; it is read as that list.
 */
function eventBody(e) {
    const at = e.attributes;
    const b = at['body'] ?? at['gen_ai.event.body'] ?? at['event.body'] ?? at['gen_ai.event.content'];
    if (b === undefined || b === null) {
        const blocks = blockList(at['content']);
        return blocks === undefined ? at : { ...at, content: blocks };
    }
    return typeof b === 'string' ? jsonValue(b) : b;
}
/** A whole-JSON attribute; a plain non-JSON string is the prompt/completion text itself. */
function wholeMessages(v, textRole) {
    if (v === undefined || v === null)
        return [];
    const parsed = jsonValue(v);
    if (parsed === undefined && typeof v === 'string' && v !== '') {
        const m = emptyMsg(textRole);
        m.texts.push(v);
        return [m];
    }
    return readMessages(parsed);
}
function eventMessages(span, output) {
    const out = [];
    for (const e of span.events) {
        const contentAttr = CONTENT_EVENT_ATTR.get(e.name);
        if (contentAttr !== undefined) {
            if ((contentAttr === 'gen_ai.completion') === output) {
                out.push(...wholeMessages(e.attributes[contentAttr], output ? 'assistant' : 'user'));
            }
            continue;
        }
        if (output ? e.name !== 'gen_ai.choice' : !INPUT_EVENT_ROLES.has(e.name))
            continue;
        const m = readMessage(eventBody(e), output ? 'assistant' : INPUT_EVENT_ROLES.get(e.name));
        if (m)
            out.push(m);
    }
    return out;
}
/** OpenLLMetry message content is text, or a JSON string of content parts for multimodal input. */
function pushContent(m, content) {
    if (typeof content !== 'string' || content === '')
        return;
    if (content.charCodeAt(0) === 91 /* [ */) {
        const parsed = jsonValue(content);
        if (Array.isArray(parsed)) {
            const inner = readMessage({ content: parsed });
            if (inner)
                for (const t of inner.texts)
                    m.texts.push(t);
            return;
        }
    }
    m.texts.push(content);
}
function numberedMessages(a, prefix) {
    const out = [];
    for (const g of groupIndexed(a, prefix))
        out.push(numberedMessage(g));
    return out;
}
/**
 * Koog writes a tool-call message as `content` = the OpenAI `tool_calls` list in JSON (and labels
 * the assistant's call message `tool` when it replays it). Returns the calls, or undefined.
 */
function toolCallsContent(content) {
    const list = blockList(content);
    if (list === undefined || !list.every((x) => isRecord(x) && isRecord(x['function'])))
        return undefined;
    return readMessage({ role: 'assistant', tool_calls: list });
}
function numberedMessage(g) {
    const f = g.fields;
    const m = emptyMsg(gstr(f, 'role'));
    const content = f.get('content');
    const calls = toolCallsContent(content);
    if (calls !== undefined) {
        m.calls.push(...calls.calls);
    }
    else if (m.role === 'tool') {
        const r = { content };
        const id = gstr(f, 'tool_call_id');
        if (id !== undefined)
            r.id = id;
        m.results.push(r);
    }
    else {
        pushContent(m, content);
    }
    for (const tc of groupIndexed(f, 'tool_calls')) {
        const name = gstr(tc.fields, 'name');
        if (name === undefined)
            continue;
        const id = gstr(tc.fields, 'id');
        m.calls.push(id === undefined ? { name, args: tc.fields.get('arguments') } : { id, name, args: tc.fields.get('arguments') });
    }
    // The pre-tools OpenAI functions API.
    const fname = gstr(f, 'function_call.name');
    if (fname !== undefined)
        m.calls.push({ name: fname, args: f.get('function_call.arguments') });
    return m;
}
function requestFunctions(a) {
    const groups = groupIndexed(a, 'llm.request.functions');
    if (groups.length === 0)
        return undefined;
    const defs = [];
    for (const g of groups) {
        const d = toToolDef({
            name: g.fields.get('name'),
            description: g.fields.get('description'),
            parameters: g.fields.get('parameters'),
        });
        if (d)
            defs.push(d);
    }
    return defs.length > 0 ? defs : undefined;
}
/**
 * Traceloop decorator input. LangChain's callback writes {inputs, tags, metadata, kwargs}: take
 * `inputs`. Python decorators write {args:[…], kwargs:{…}}: take kwargs, or the single positional
 * object. Positional scalars cannot be mapped onto named parameters, so they count as no arguments
 * rather than as a guaranteed schema mismatch. Any other JSON is taken as the arguments verbatim.
 */
export function traceloopArgs(v) {
    const parsed = typeof v === 'string' ? jsonValue(v) : v;
    if (!isRecord(parsed))
        return v;
    const inputs = parsed['inputs'];
    if (inputs !== undefined && inputs !== null)
        return inputs;
    const args = parsed['args'];
    const kwargs = parsed['kwargs'];
    if (args === undefined && kwargs === undefined)
        return v;
    const positional = Array.isArray(args) ? args : [];
    const named = isRecord(kwargs) && Object.keys(kwargs).length > 0 ? kwargs : undefined;
    if (positional.length === 0)
        return named ?? {};
    if (named === undefined && positional.length === 1 && isRecord(positional[0]))
        return positional[0];
    return undefined;
}
function firstNonEmpty(sources, pick, empty) {
    for (const s of sources) {
        if (s.length === 0)
            continue;
        const v = pick(s);
        if (v !== undefined && !empty(v))
            return v;
    }
    return undefined;
}
function fillModel(span, f) {
    const a = span.attributes;
    const inputs = [
        wholeMessages(a['gen_ai.prompt'], 'user'),
        eventMessages(span, false),
        numberedMessages(a, 'gen_ai.prompt'),
    ];
    const outputs = [
        wholeMessages(a['gen_ai.completion'], 'assistant'),
        eventMessages(span, true),
        numberedMessages(a, 'gen_ai.completion'),
    ];
    const isEmpty = (x) => x.length === 0;
    if (f.proposals.length === 0)
        f.proposals = firstNonEmpty(outputs, proposalsOf, isEmpty) ?? [];
    if (f.replays.length === 0)
        f.replays = firstNonEmpty(inputs, replaysOf, isEmpty) ?? [];
    f.userMessage ??= firstNonEmpty(inputs, firstUserText, () => false);
    f.outputText ??= firstNonEmpty(outputs, assistantText, () => false);
    if (f.proposals.length > 0 && f.offered === undefined && writesToolSchemas(a))
        f.schemasOnToolSpans = true;
}
/** An attribute of the first event with this name. */
function eventAttr(span, event, key) {
    for (const e of span.events)
        if (e.name === event && e.attributes[key] !== undefined)
            return e.attributes[key];
    return undefined;
}
/**
 * readGenAi already built an execution from any gen_ai.* attributes; Traceloop fills the gaps, and
 * so do Strands' tool events (arguments in the `gen_ai.tool.message` event's `content`, the result
 * in its `gen_ai.choice` event's `message`).
 */
function fillTool(span, f) {
    const a = span.attributes;
    const fallback = execution(span, str(a, 'traceloop.entity.name') ?? span.name, undefined, a['traceloop.entity.input'] !== undefined
        ? traceloopArgs(a['traceloop.entity.input'])
        : eventAttr(span, 'gen_ai.tool.message', 'content'), a['traceloop.entity.output'] ?? eventAttr(span, 'gen_ai.choice', 'message'));
    const e = f.execution;
    if (!e) {
        f.execution = fallback;
        return;
    }
    if (e.name === '')
        e.name = fallback.name;
    if (e.args.kind === 'none')
        e.args = fallback.args;
    if (e.result === undefined && fallback.result !== undefined)
        e.result = fallback.result;
}
/**
 * Strands' `execute_event_loop_cycle` span (legacy events mode) repeats the `gen_ai.choice` of the
 * `chat` span under it, without the model: it is the agent loop, its calls a summary (counted only
 * when no model or tool span of the call turns up), never proposals that would carry `model=""`.
 */
const STRANDS_CYCLE = 'execute_event_loop_cycle';
function readStrandsCycle(span) {
    const asModel = readGenAi(span, 'genai-legacy', 'model');
    fillModel(span, asModel);
    const f = readGenAi(span, 'genai-legacy', 'agent');
    if (asModel.proposals.length > 0)
        f.summaryCalls = asModel.proposals;
    return f;
}
export const genaiLegacyReader = {
    name: 'genai-legacy',
    matches(span) {
        const a = span.attributes;
        if (a['gen_ai.prompt'] !== undefined ||
            a['gen_ai.completion'] !== undefined ||
            a['traceloop.span.kind'] !== undefined ||
            a['llm.request.type'] !== undefined) {
            return true;
        }
        for (const e of span.events)
            if (isLegacyEvent(e.name))
                return true;
        return hasNumberedKeys(a);
    },
    read(span) {
        if (str(span.attributes, 'gen_ai.operation.name') === STRANDS_CYCLE)
            return readStrandsCycle(span);
        const current = genAiRole(span.attributes);
        const role = current === 'other' ? legacyRole(span) : current;
        const f = readGenAi(span, 'genai-legacy', role);
        f.offered ??= requestFunctions(span.attributes);
        if (role === 'model')
            fillModel(span, f);
        else if (role === 'tool')
            fillTool(span, f);
        return f;
    },
};
//# sourceMappingURL=genai-legacy.js.map