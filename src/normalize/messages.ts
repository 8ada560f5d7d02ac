/**
 * Chat messages in the shapes found inside GenAI/Vercel/legacy attributes and events, reduced to
 * what toolwatch needs: text, tool calls, tool results. One reader for all shapes, because emitters
 * mix them (the deprecated `gen_ai.prompt` carries the new parts shape, OpenAI shapes appear in
 * current attributes, Vercel has its own part names). Walks fixed paths only: no recursion.
 */
import type { CallSighting } from '../model.js';
import { eachArrayElement } from '../util/json-elements.js';
import { field, isRecord, jsonValue, parseJson, resultText, toToolArgs, type Rec } from '../util/values.js';

export interface MsgCall {
  id?: string;
  name: string;
  /** The arguments as found: string, structure, or undefined. */
  args: unknown;
}

export interface MsgResult {
  id?: string;
  content: unknown;
}

export interface Msg {
  role?: string;
  texts: string[];
  calls: MsgCall[];
  results: MsgResult[];
}

export function emptyMsg(role?: string): Msg {
  return role === undefined ? { texts: [], calls: [], results: [] } : { role, texts: [], calls: [], results: [] };
}

function call(id: unknown, name: unknown, args: unknown): MsgCall | undefined {
  if (typeof name !== 'string' || name === '') return undefined;
  const c: MsgCall = { name, args };
  if (typeof id === 'string' && id !== '') c.id = id;
  return c;
}

function pushResult(msg: Msg, id: unknown, content: unknown): void {
  const r: MsgResult = { content };
  if (typeof id === 'string' && id !== '') r.id = id;
  msg.results.push(r);
}

/** Vercel v5 wraps results as {type:'json'|'text', value}. */
function unwrapOutput(v: unknown): unknown {
  if (isRecord(v) && 'value' in v && (v['type'] === 'json' || v['type'] === 'text')) return v['value'];
  return v;
}

/** One content part / Responses API item. Returns false when it is not a known part type. */
function readPart(p: Rec, msg: Msg): boolean {
  let c: MsgCall | undefined;
  switch (p['type']) {
    case 'text':
    case 'input_text':
    case 'output_text': {
      const t = field(p, 'content') ?? field(p, 'text');
      if (t !== undefined) msg.texts.push(t);
      return true;
    }
    case 'tool_call': // OTel GenAI parts
      c = call(p['id'], p['name'], p['arguments']);
      break;
    case 'function_call': // OpenAI Responses API
      c = call(p['call_id'] ?? p['id'], p['name'], p['arguments']);
      break;
    case 'tool-call': // Vercel AI SDK
      c = call(p['toolCallId'], p['toolName'], p['input'] !== undefined ? p['input'] : p['args']);
      break;
    case 'tool_use': // Anthropic
      c = call(p['id'], p['name'], p['input']);
      break;
    case 'toolCall': // pi-ai (Flue)
      c = call(p['id'], p['name'], p['arguments']);
      break;
    case 'tool_call_response':
      pushResult(msg, p['id'], p['response'] !== undefined ? p['response'] : p['result']);
      return true;
    case 'tool-result':
      pushResult(msg, p['toolCallId'], unwrapOutput(p['output'] !== undefined ? p['output'] : p['result']));
      return true;
    case 'tool_result':
      pushResult(msg, p['tool_use_id'], p['content']);
      return true;
    case 'function_call_output':
      pushResult(msg, p['call_id'], p['output']);
      return true;
    default:
      return false;
  }
  if (c) msg.calls.push(c);
  return true;
}

/**
 * Content blocks keyed by their kind instead of a `type` field: Bedrock Converse (Strands)
 * `{toolUse:{toolUseId, name, input}}` / `{toolResult:{toolUseId, content}}` / `{text}`, and Gemini
 * (Google ADK) `{function_call:{id?, name, args}}` / `{function_response:{id?, name, response}}`.
 */
function readKeyedBlock(p: Rec, msg: Msg): void {
  const use = p['toolUse'];
  const fc = p['function_call'] ?? p['functionCall'];
  const result = p['toolResult'];
  const fr = p['function_response'] ?? p['functionResponse'];
  let c: MsgCall | undefined;
  if (isRecord(use)) c = call(use['toolUseId'], use['name'], use['input']);
  else if (isRecord(fc)) c = call(fc['id'], fc['name'], fc['args']);
  else if (isRecord(result)) pushResult(msg, result['toolUseId'], result['content']);
  else if (isRecord(fr)) pushResult(msg, fr['id'], fr['response']);
  else if (typeof p['text'] === 'string') msg.texts.push(p['text']);
  if (c) msg.calls.push(c);
}

function readParts(parts: readonly unknown[], msg: Msg): void {
  for (const p of parts) {
    if (typeof p === 'string') msg.texts.push(p);
    else if (isRecord(p)) {
      if (p['type'] === undefined) readKeyedBlock(p, msg);
      else readPart(p, msg);
    }
  }
}

/** A string holding a JSON list of content blocks (how Strands writes message events), else undefined. */
export function blockList(v: unknown): unknown[] | undefined {
  if (typeof v !== 'string' || v.charCodeAt(0) !== 91 /* [ */) return undefined;
  const parsed = jsonValue(v);
  return Array.isArray(parsed) && parsed.length > 0 && parsed.every(isRecord) ? parsed : undefined;
}

/** OpenAI chat `tool_calls` entries; some instrumentations flatten `function` away. */
function readToolCalls(list: unknown, msg: Msg): void {
  const arr = typeof list === 'string' ? jsonValue(list) : list;
  if (!Array.isArray(arr)) return;
  for (const item of arr) {
    // LiveKit writes each entry of a gen_ai.choice event's tool_calls as its own JSON string.
    const tc = typeof item === 'string' ? jsonValue(item) : item;
    if (!isRecord(tc)) continue;
    const fn = isRecord(tc['function']) ? (tc['function'] as Rec) : tc;
    const c = call(tc['id'], fn['name'], fn['arguments']);
    if (c) msg.calls.push(c);
  }
}

/** One message object in any supported shape; `defaultRole` comes from an event name when the body has none. */
export function readMessage(value: unknown, defaultRole?: string): Msg | undefined {
  let m = value;
  if (!isRecord(m)) return undefined;
  // gen_ai.choice / OpenAI choice: {index, finish_reason, message:{…}}
  if (m['role'] === undefined && m['message'] !== undefined) {
    const inner = typeof m['message'] === 'string' ? jsonValue(m['message']) : m['message'];
    if (isRecord(inner)) m = inner;
    else if (Array.isArray(inner)) {
      // Strands' gen_ai.choice: `message` is the list of content blocks itself.
      const blocks = emptyMsg(defaultRole ?? 'assistant');
      readParts(inner, blocks);
      return blocks;
    }
  }
  const rec = m as Rec;
  const role = field(rec, 'role') ?? defaultRole;
  const msg = emptyMsg(role);
  const isTool = role === 'tool' || role === 'function';
  const content = rec['content'];
  if (isTool && (rec['tool_call_id'] !== undefined || rec['id'] !== undefined || typeof content === 'string')) {
    // OpenAI tool message / gen_ai.tool.message event body {id, content}.
    pushResult(msg, rec['tool_call_id'] ?? rec['id'], content);
  } else if (typeof content === 'string') {
    msg.texts.push(content);
  } else if (Array.isArray(content)) {
    readParts(content, msg);
  }
  const parts = rec['parts'];
  if (Array.isArray(parts)) readParts(parts, msg);
  const text = rec['text'];
  if (typeof text === 'string') msg.texts.push(text);
  if (rec['tool_calls'] !== undefined) readToolCalls(rec['tool_calls'], msg);
  const fc = rec['function_call'];
  if (isRecord(fc)) {
    const c = call(undefined, fc['name'], fc['arguments']);
    if (c) msg.calls.push(c);
  }
  // A bare part or Responses API item at message level.
  if (rec['role'] === undefined && typeof rec['type'] === 'string' && parts === undefined && content === undefined) {
    readPart(rec, msg);
  }
  return msg;
}

/**
 * Every name a call is read under (readPart's call types, readKeyedBlock's keys, `tool_calls`,
 * `function_call`): a JSON text that contains none of them, and no `\u` escape that could spell one,
 * holds no call in any shape readMessages knows, so whoever needs only its calls need not parse it.
 * Keep in step with the readers above.
 */
const CALL_MARKERS = /tool_call|function_call|tool-call|tool_use|toolCall|toolUse|functionCall|\\u/;

/** false when the JSON text can hold no call (CALL_MARKERS); true when it may. One scan (a regular expression, about a third the cost of the eight `includes` it stands for). */
export function mayHoldCalls(text: string): boolean {
  return CALL_MARKERS.test(text);
}

/** A list of messages from an already-parsed value: array, {choices}, {messages}, or one message. */
export function readMessages(v: unknown): Msg[] {
  let list: readonly unknown[];
  if (Array.isArray(v)) list = v;
  else if (isRecord(v)) {
    const choices = v['choices'];
    const messages = v['messages'];
    list = Array.isArray(choices) ? choices : Array.isArray(messages) ? messages : [v];
  } else return [];
  // Started by a literal, not a push: the first push into [] reserves 16 slots, and one message is usual.
  let out: Msg[] | undefined;
  for (const item of list) {
    const m = readMessage(item);
    if (m === undefined) continue;
    if (out === undefined) out = [m];
    else out.push(m);
  }
  return out ?? [];
}

function sighting(c: MsgCall, index: number): CallSighting {
  const s: CallSighting = { name: c.name, args: toToolArgs(c.args), index };
  if (c.id !== undefined) s.callId = c.id;
  return s;
}

/** Every call in model output, in order. */
export function proposalsOf(msgs: readonly Msg[]): CallSighting[] {
  // As readMessages: a single call (the usual response) gets a one-slot array.
  let out: CallSighting[] | undefined;
  for (const m of msgs) {
    for (const c of m.calls) {
      if (out === undefined) out = [sighting(c, 0)];
      else out.push(sighting(c, out.length));
    }
  }
  return out ?? [];
}

/** Every call in input history, with its result attached when the history carries one with the same id. */
export function replaysOf(msgs: readonly Msg[]): CallSighting[] {
  let results: Map<string, unknown> | undefined;
  for (const m of msgs) {
    for (const r of m.results) {
      if (r.id === undefined) continue;
      results ??= new Map();
      if (!results.has(r.id)) results.set(r.id, r.content);
    }
  }
  const out: CallSighting[] = [];
  for (const m of msgs) {
    for (const c of m.calls) {
      const s = sighting(c, out.length);
      if (c.id !== undefined && results?.has(c.id)) {
        const text = resultText(results.get(c.id));
        if (text !== undefined) s.result = text;
      }
      out.push(s);
    }
  }
  return out;
}

/** Text of the first user message that has any. */
export function firstUserText(msgs: readonly Msg[]): string | undefined {
  for (const m of msgs) if (m.role === 'user' && m.texts.length > 0) return m.texts.join('\n');
  return undefined;
}

/**
 * firstUserText(readMessages(jsonValue(v))) for a history that is a JSON array text, read one
 * element at a time: the elements after the first user message are not parsed (the history is the
 * whole conversation, replayed on every model span, and only the judge's steps and a failure's
 * context read this). A history cut short after that message (an attribute length limit) still
 * yields it; the walk stops at an element that does not parse.
 */
export function firstUserTextOfJson(v: unknown): string | undefined {
  const whole = () => firstUserText(readMessages(jsonValue(v)));
  if (typeof v !== 'string') return whole();
  let found: string | undefined;
  const isArray = eachArrayElement(v, (text) => {
    const item = parseJson(text);
    if (item === undefined) return true;
    const m = readMessage(item);
    found = m && firstUserText([m]);
    return found !== undefined;
  });
  return isArray ? found : whole();
}

/** Assistant text of a response (messages without a role count: completions often omit it). */
export function assistantText(msgs: readonly Msg[]): string | undefined {
  const texts: string[] = [];
  for (const m of msgs) {
    if (m.role === undefined || m.role === 'assistant' || m.role === 'model') for (const t of m.texts) texts.push(t);
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}
