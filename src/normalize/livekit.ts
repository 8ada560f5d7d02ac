/**
 * LiveKit Agents (livekit/agents, `telemetry/trace_types.py`, `voice/generation.py`). Content keys
 * gained an `lk.pii.` prefix in August 2026; both spellings are read.
 *
 *   `llm_node` (the agent's model step):
 *     lk.function_tools                 string[] — names of the function tools offered (no schemas)
 *     lk.[pii.]response.function_calls  JSON [{id, call_id, name, arguments:"<json>", …}]
 *     lk.[pii.]chat_ctx                 JSON {items:[message | function_call | function_call_output]};
 *                                       the first, a system message, holds the agent's instructions
 *     gen_ai.request.model, gen_ai.provider.name
 *   `function_tool`: lk.function_tool.id, lk.function_tool.name, lk.[pii.]function_tool.arguments,
 *     lk.[pii.]function_tool.output, lk.function_tool.is_error
 *
 * The `llm_request` span below `llm_node` (the LLM plugin's request; `lk.llm_metrics` marks it)
 * repeats the calls in a `gen_ai.choice` event with the same call ids but without the tool list:
 * its calls are summary sightings, so the `llm_node` proposal, which knows the offered tools, is
 * the one classified whichever span arrives first.
 */
import type { AttrObject, AttrValue, Span, SpanFacts, ToolDef } from '../model.js';
import type { DialectReader } from './dialect.js';
import { textStatus } from './exec-status.js';
import { baseFacts, execution, lazyHistory } from './facts.js';
import { genaiReader } from './genai.js';
import { genaiLegacyReader } from './genai-legacy.js';
import { systemMessageVersion } from './system-message.js';
import { proposalsOf, readMessages, type Msg, type MsgCall } from './messages.js';
import { field, hasAnyKey, isRecord, jsonValue, str } from '../util/values.js';

const either = (a: AttrObject, key: string): AttrValue | undefined => a[`lk.pii.${key}`] ?? a[`lk.${key}`];

function isToolSpan(a: AttrObject): boolean {
  return a['lk.function_tool.name'] !== undefined || a['lk.function_tool.id'] !== undefined;
}

function functionCalls(v: unknown): Msg[] {
  const list = jsonValue(v);
  if (!Array.isArray(list)) return [];
  const calls: MsgCall[] = [];
  for (const c of list) {
    if (!isRecord(c)) continue;
    const name = field(c, 'name');
    if (name === undefined) continue;
    const call: MsgCall = { name, args: c['arguments'] };
    const id = field(c, 'call_id');
    if (id !== undefined) call.id = id;
    calls.push(call);
  }
  return [{ role: 'assistant', texts: [], calls, results: [] }];
}

/** chat_ctx items in the OpenAI Responses item shape the message reader knows. */
function chatItems(v: unknown): Msg[] {
  const ctx = jsonValue(v);
  const items = isRecord(ctx) ? ctx['items'] : undefined;
  if (!Array.isArray(items)) return [];
  return readMessages(
    items.map((it) => {
      if (!isRecord(it)) return it;
      if (it['type'] === 'function_call' || it['type'] === 'function_call_output') return it;
      const content = it['content'];
      const text = Array.isArray(content) ? content.filter((c) => typeof c === 'string').join('\n') : content;
      return { role: it['role'], content: text };
    }),
  );
}

/**
 * The agent's instructions: LiveKit puts them first in the chat context, a `system` (or
 * `developer`) message. Only that first item is cut out of the JSON text and parsed (the context
 * grows with every turn; system-message.ts).
 */
function instructionsVersion(ctx: AttrValue | undefined): string | undefined {
  if (typeof ctx !== 'string') return undefined;
  const key = ctx.indexOf('"items"');
  const start = key < 0 ? -1 : ctx.indexOf('[', key);
  return start < 0 ? undefined : systemMessageVersion(ctx.slice(start));
}

function offeredNames(v: unknown): ToolDef[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const names = v.filter((n): n is string => typeof n === 'string' && n !== '');
  return names.length === 0 ? undefined : names.map((name) => ({ name }));
}

function readTool(span: Span): SpanFacts {
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

function readRequest(span: Span): SpanFacts {
  const f = genaiLegacyReader.matches(span) ? genaiLegacyReader.read(span) : genaiReader.read(span);
  f.dialect = 'livekit';
  if (f.proposals.length > 0) {
    f.summaryCalls = f.proposals;
    f.proposals = [];
  }
  return f;
}

/** Each span kind has one key LiveKit always writes. */
const MARKS = ['lk.function_tools', 'lk.function_tool.name', 'lk.llm_metrics'];

export const livekitReader: DialectReader = {
  name: 'livekit',
  marks: { keys: MARKS },
  matches(span) {
    return hasAnyKey(span.attributes, MARKS);
  },
  read(span) {
    const a = span.attributes;
    if (isToolSpan(a)) return readTool(span);
    const isRequest = a['lk.llm_metrics'] !== undefined && either(a, 'response.function_calls') === undefined;
    if (isRequest) return readRequest(span);
    const f = baseFacts(span, 'livekit', 'model');
    const model = str(a, 'gen_ai.request.model');
    if (model !== undefined) f.model = model;
    const provider = str(a, 'gen_ai.provider.name');
    if (provider !== undefined) f.provider = provider;
    const offered = offeredNames(a['lk.function_tools']);
    if (offered !== undefined) f.offered = offered;
    f.proposals = proposalsOf(functionCalls(either(a, 'response.function_calls')));
    const text = either(a, 'response.text');
    if (typeof text === 'string' && text !== '') f.outputText = text;
    const ctx = either(a, 'chat_ctx');
    const prompt = instructionsVersion(ctx);
    if (prompt !== undefined) f.promptVersion = prompt;
    if (ctx !== undefined) {
      lazyHistory(f, ctx, chatItems);
    }
    return f;
  },
};
