/**
 * Deprecated GenAI forms still in the wild: v1.28–v1.36 events (as span events), whole-JSON
 * `gen_ai.prompt`/`gen_ai.completion`, OpenLLMetry numbered keys and `llm.request.functions`,
 * and Traceloop decorator spans (`traceloop.span.kind`).
 *
 * Registered before `genai`: it reads the span the current way first (readGenAi), then fills only
 * what is still missing from the old forms, taking the first form that has calls. So a span carrying
 * both `gen_ai.operation.name=chat` and numbered completion keys yields its calls exactly once.
 */
import type { AttrObject, AttrValue, Span, SpanEvent, SpanFacts, ToolDef } from '../model.js';
import type { DialectReader } from './dialect.js';
import { execution } from './facts.js';
import { genAiRole, readGenAi, writesToolSchemas } from './genai.js';
import { groupIndexed, gstr, type IndexedGroup } from './indexed.js';
import {
  assistantText,
  blockList,
  emptyMsg,
  firstUserText,
  proposalsOf,
  readMessage,
  readMessages,
  replaysOf,
  type Msg,
} from './messages.js';
import { toToolDef } from '../tools/tooldefs.js';
import { hasAnyKey, isRecord, jsonValue, str, type Rec } from '../util/values.js';

/** v1.28 message events carry the role in the event name. */
const INPUT_EVENT_ROLES = new Map<string, string>([
  ['gen_ai.system.message', 'system'],
  ['gen_ai.user.message', 'user'],
  ['gen_ai.assistant.message', 'assistant'],
  ['gen_ai.tool.message', 'tool'],
]);
/** v1.26 content events put the whole JSON in an attribute named like the old span attributes. */
const CONTENT_EVENT_ATTR = new Map<string, string>([
  ['gen_ai.content.prompt', 'gen_ai.prompt'],
  ['gen_ai.content.completion', 'gen_ai.completion'],
]);
/**
 * The old forms' own keys: the deprecated whole-JSON attributes, OpenLLMetry's markers, and the exact
 * keys every OpenLLMetry numbered message/function list has at index 0 (probed, not scanned for).
 */
const MARKS = [
  'gen_ai.prompt',
  'gen_ai.completion',
  'traceloop.span.kind',
  'llm.request.type',
  'gen_ai.prompt.0.role',
  'gen_ai.prompt.0.content',
  'gen_ai.prompt.0.finish_reason',
  'gen_ai.prompt.0.tool_calls.0.name',
  'gen_ai.prompt.0.tool_calls.0.id',
  'gen_ai.prompt.0.function_call.name',
  'gen_ai.completion.0.role',
  'gen_ai.completion.0.content',
  'gen_ai.completion.0.finish_reason',
  'gen_ai.completion.0.tool_calls.0.name',
  'gen_ai.completion.0.tool_calls.0.id',
  'gen_ai.completion.0.function_call.name',
  'llm.request.functions.0.name',
];

function isLegacyEvent(name: string): boolean {
  return name === 'gen_ai.choice' || INPUT_EVENT_ROLES.has(name) || CONTENT_EVENT_ATTR.has(name);
}

function legacyRole(span: Span): SpanFacts['role'] {
  const a = span.attributes;
  const kind = str(a, 'traceloop.span.kind');
  if (kind !== undefined) return kind === 'tool' ? 'tool' : kind === 'workflow' || kind === 'agent' ? 'agent' : 'other';
  const type = str(a, 'llm.request.type');
  if (type === 'embedding' || type === 'rerank') return 'other';
  // Anything else that made matches() true is a model request in old clothes.
  return 'model';
}

/**
 * Event body: in a `body`-like attribute (JSON or structured; Semantic Kernel .NET writes
 * `gen_ai.event.content`), or flattened into the attributes. Strands writes a message's `content` as
 * a JSON list of content blocks; it is read as that list.
 */
function eventBody(e: SpanEvent): unknown {
  const at = e.attributes;
  const b = at['body'] ?? at['gen_ai.event.body'] ?? at['event.body'] ?? at['gen_ai.event.content'];
  if (b === undefined || b === null) {
    const blocks = blockList(at['content']);
    return blocks === undefined ? at : { ...at, content: blocks };
  }
  return typeof b === 'string' ? jsonValue(b) : b;
}

/** A whole-JSON attribute; a plain non-JSON string is the prompt/completion text itself. */
function wholeMessages(v: AttrValue | undefined, textRole: string): Msg[] {
  if (v === undefined || v === null) return [];
  const parsed = jsonValue(v);
  if (parsed === undefined && typeof v === 'string' && v !== '') {
    const m = emptyMsg(textRole);
    m.texts.push(v);
    return [m];
  }
  return readMessages(parsed);
}

function eventMessages(span: Span, output: boolean): Msg[] {
  const out: Msg[] = [];
  for (const e of span.events) {
    const contentAttr = CONTENT_EVENT_ATTR.get(e.name);
    if (contentAttr !== undefined) {
      if ((contentAttr === 'gen_ai.completion') === output) {
        out.push(...wholeMessages(e.attributes[contentAttr], output ? 'assistant' : 'user'));
      }
      continue;
    }
    if (output ? e.name !== 'gen_ai.choice' : !INPUT_EVENT_ROLES.has(e.name)) continue;
    const m = readMessage(eventBody(e), output ? 'assistant' : INPUT_EVENT_ROLES.get(e.name));
    if (m) out.push(m);
  }
  return out;
}

/** OpenLLMetry message content is text, or a JSON string of content parts for multimodal input. */
function pushContent(m: Msg, content: AttrValue | undefined): void {
  if (typeof content !== 'string' || content === '') return;
  if (content.charCodeAt(0) === 91 /* [ */) {
    const parsed = jsonValue(content);
    if (Array.isArray(parsed)) {
      const inner = readMessage({ content: parsed });
      if (inner) for (const t of inner.texts) m.texts.push(t);
      return;
    }
  }
  m.texts.push(content);
}

function numberedMessages(a: AttrObject, prefix: string): Msg[] {
  const out: Msg[] = [];
  for (const g of groupIndexed(a, prefix)) out.push(numberedMessage(g));
  return out;
}

/**
 * Koog writes a tool-call message as `content` = the OpenAI `tool_calls` list in JSON (and labels
 * the assistant's call message `tool` when it replays it). Returns the calls, or undefined.
 */
function toolCallsContent(content: AttrValue | undefined): Msg | undefined {
  const list = blockList(content);
  if (list === undefined || !list.every((x) => isRecord(x) && isRecord(x['function']))) return undefined;
  return readMessage({ role: 'assistant', tool_calls: list });
}

function numberedMessage(g: IndexedGroup): Msg {
  const f = g.fields;
  const m = emptyMsg(gstr(f, 'role'));
  const content = f.get('content');
  const calls = toolCallsContent(content);
  if (calls !== undefined) {
    m.calls.push(...calls.calls);
  } else if (m.role === 'tool') {
    const r: Msg['results'][number] = { content };
    const id = gstr(f, 'tool_call_id');
    if (id !== undefined) r.id = id;
    m.results.push(r);
  } else {
    pushContent(m, content);
  }
  for (const tc of groupIndexed(f, 'tool_calls')) {
    const name = gstr(tc.fields, 'name');
    if (name === undefined) continue;
    const id = gstr(tc.fields, 'id');
    m.calls.push(
      id === undefined ? { name, args: tc.fields.get('arguments') } : { id, name, args: tc.fields.get('arguments') },
    );
  }
  // The pre-tools OpenAI functions API.
  const fname = gstr(f, 'function_call.name');
  if (fname !== undefined) m.calls.push({ name: fname, args: f.get('function_call.arguments') });
  return m;
}

function requestFunctions(a: AttrObject): ToolDef[] | undefined {
  const groups = groupIndexed(a, 'llm.request.functions');
  if (groups.length === 0) return undefined;
  const defs: ToolDef[] = [];
  for (const g of groups) {
    const d = toToolDef({
      name: g.fields.get('name'),
      description: g.fields.get('description'),
      parameters: g.fields.get('parameters'),
    });
    if (d) defs.push(d);
  }
  return defs.length > 0 ? defs : undefined;
}

/**
 * Traceloop decorator input. LangChain's callback writes {inputs, tags, metadata, kwargs}: take
 * `inputs`. Python decorators write {args:[…], kwargs:{…}}: take kwargs, or the single positional
 * object. Positional scalars cannot be mapped onto named parameters, so they count as no arguments
 * rather than as a guaranteed schema mismatch. Any other JSON is taken as the arguments verbatim.
 */
export function traceloopArgs(v: AttrValue | undefined): unknown {
  const parsed = typeof v === 'string' ? jsonValue(v) : v;
  if (!isRecord(parsed)) return v;
  const inputs = parsed['inputs'];
  if (inputs !== undefined && inputs !== null) return inputs;
  const args = parsed['args'];
  const kwargs = parsed['kwargs'];
  if (args === undefined && kwargs === undefined) return v;
  const positional = Array.isArray(args) ? args : [];
  const named = isRecord(kwargs) && Object.keys(kwargs).length > 0 ? (kwargs as Rec) : undefined;
  if (positional.length === 0) return named ?? {};
  if (named === undefined && positional.length === 1 && isRecord(positional[0])) return positional[0];
  return undefined;
}

function firstNonEmpty<T>(
  sources: readonly Msg[][],
  pick: (m: Msg[]) => T | undefined,
  empty: (t: T) => boolean,
): T | undefined {
  for (const s of sources) {
    if (s.length === 0) continue;
    const v = pick(s);
    if (v !== undefined && !empty(v)) return v;
  }
  return undefined;
}

function fillModel(span: Span, f: SpanFacts): void {
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
  const isEmpty = (x: unknown[]): boolean => x.length === 0;
  if (f.proposals.length === 0) f.proposals = firstNonEmpty(outputs, proposalsOf, isEmpty) ?? [];
  if (f.replays.length === 0) f.replays = firstNonEmpty(inputs, replaysOf, isEmpty) ?? [];
  f.userMessage ??= firstNonEmpty(inputs, firstUserText, () => false);
  f.outputText ??= firstNonEmpty(outputs, assistantText, () => false);
  if (f.proposals.length > 0 && f.offered === undefined && writesToolSchemas(a)) f.schemasOnToolSpans = true;
}

/** An attribute of the first event with this name. */
function eventAttr(span: Span, event: string, key: string): AttrValue | undefined {
  for (const e of span.events) if (e.name === event && e.attributes[key] !== undefined) return e.attributes[key];
  return undefined;
}

/**
 * readGenAi already built an execution from any gen_ai.* attributes; Traceloop fills the gaps, and
 * so do Strands' tool events (arguments in the `gen_ai.tool.message` event's `content`, the result
 * in its `gen_ai.choice` event's `message`).
 */
function fillTool(span: Span, f: SpanFacts): void {
  const a = span.attributes;
  const fallback = execution(
    span,
    str(a, 'traceloop.entity.name') ?? span.name,
    undefined,
    a['traceloop.entity.input'] !== undefined
      ? traceloopArgs(a['traceloop.entity.input'])
      : eventAttr(span, 'gen_ai.tool.message', 'content'),
    a['traceloop.entity.output'] ?? eventAttr(span, 'gen_ai.choice', 'message'),
  );
  const e = f.execution;
  if (!e) {
    f.execution = fallback;
    return;
  }
  if (e.name === '') e.name = fallback.name;
  if (e.args.kind === 'none') e.args = fallback.args;
  if (e.result === undefined && fallback.result !== undefined) e.result = fallback.result;
}

/**
 * Strands' `execute_event_loop_cycle` span (legacy events mode) repeats the `gen_ai.choice` of the
 * `chat` span under it, without the model: it is the agent loop, its calls a summary (counted only
 * when no model or tool span of the call turns up), never proposals that would carry `model=""`.
 */
const STRANDS_CYCLE = 'execute_event_loop_cycle';

function readStrandsCycle(span: Span): SpanFacts {
  const asModel = readGenAi(span, 'genai-legacy', 'model');
  fillModel(span, asModel);
  const f = readGenAi(span, 'genai-legacy', 'agent');
  if (asModel.proposals.length > 0) f.summaryCalls = asModel.proposals;
  return f;
}

export const genaiLegacyReader: DialectReader = {
  name: 'genai-legacy',
  marks: { keys: MARKS, also: (span) => span.events.length > 0 },
  matches(span) {
    if (hasAnyKey(span.attributes, MARKS)) return true;
    for (const e of span.events) if (isLegacyEvent(e.name)) return true;
    return false;
  },
  read(span) {
    if (str(span.attributes, 'gen_ai.operation.name') === STRANDS_CYCLE) return readStrandsCycle(span);
    const current = genAiRole(span.attributes);
    const role = current === 'other' ? legacyRole(span) : current;
    const f = readGenAi(span, 'genai-legacy', role);
    f.offered ??= requestFunctions(span.attributes);
    if (role === 'model') fillModel(span, f);
    else if (role === 'tool') fillTool(span, f);
    return f;
  },
};
