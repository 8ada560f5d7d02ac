/**
 * Vercel AI SDK legacy telemetry (v4–v6, v7 LegacyOpenTelemetry), scope `ai`. Model calls are the
 * inner `ai.*.do*` spans; the outer `ai.generateText`/`ai.streamText` span repeats every step's calls
 * as a summary, so it yields no proposals (they would be counted twice). v7 `@ai-sdk/otel` emits
 * plain GenAI and is read by `genai`.
 */
import type { AttrObject, Span, SpanFacts } from '../model.js';
import type { DialectReader } from './dialect.js';
import { servedBy } from './provider.js';
import { systemMessageVersion } from './system-message.js';
import { baseFacts, execution } from './facts.js';
import { firstUserText, proposalsOf, readMessages, replaysOf, type Msg, type MsgCall } from './messages.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { field, firstAttr, isRecord, jsonValue, num, str } from '../util/values.js';

const OUTER_OPS = new Set(['ai.generateText', 'ai.streamText', 'ai.generateObject', 'ai.streamObject']);

/** An AI SDK operation id: `ai.generateText`, `ai.streamText.doStream`, `ai.toolCall`, … */
const OPERATION_ID = /^ai\.[A-Za-z]+(\.do[A-Z][A-Za-z]*)?$/;

/**
 * `operation.name` is `${operationId} ${functionId}`. Some processors keep only it (no
 * `ai.operationId`, another scope name), so it identifies the operation too.
 */
function operationFromName(a: AttrObject): string | undefined {
  const name = str(a, 'operation.name');
  if (name === undefined) return undefined;
  const space = name.indexOf(' ');
  const op = space < 0 ? name : name.slice(0, space);
  return OPERATION_ID.test(op) ? op : undefined;
}

function hasAiAttribute(a: AttrObject): boolean {
  for (const k in a) if (k.startsWith('ai.')) return true;
  return false;
}

function operationOf(span: Span): string {
  return str(span.attributes, 'ai.operationId') ?? operationFromName(span.attributes) ?? span.name;
}

function roleOf(op: string): SpanFacts['role'] {
  if (op === 'ai.toolCall') return 'tool';
  if (OUTER_OPS.has(op)) return 'agent';
  if (op.startsWith('ai.embed')) return 'other';
  // doGenerate / doStream of any operation.
  return /\.do[A-Z]/.test(op) ? 'model' : 'other';
}

/** `ai.response.toolCalls`: v5+ `input` (object, or the raw string when the model's JSON was invalid), v4 `args`. */
function responseCalls(v: unknown): Msg[] {
  const list = jsonValue(v);
  if (!Array.isArray(list)) return [];
  const calls: MsgCall[] = [];
  for (const tc of list) {
    if (!isRecord(tc)) continue;
    const name = field(tc, 'toolName');
    if (name === undefined) continue;
    const c: MsgCall = { name, args: tc['input'] !== undefined ? tc['input'] : tc['args'] };
    const id = field(tc, 'toolCallId');
    if (id !== undefined) c.id = id;
    calls.push(c);
  }
  return [{ role: 'assistant', texts: [], calls, results: [] }];
}

/** Outer spans: `ai.prompt` = {system?, prompt?, messages?}; inner spans: `ai.prompt.messages`. */
function userMessageOf(a: AttrObject): string | undefined {
  const msgs = a['ai.prompt.messages'];
  if (msgs !== undefined) return firstUserText(readMessages(jsonValue(msgs)));
  const prompt = jsonValue(a['ai.prompt']);
  if (isRecord(prompt)) {
    const p = prompt['prompt'];
    if (typeof p === 'string' && p !== '') return p;
    if (Array.isArray(prompt['messages'])) return firstUserText(readMessages(prompt['messages']));
  }
  return undefined;
}

/**
 * A tool span's call: `ai.toolCall.*`, completed from an `ai.response.toolCalls` the span carries
 * (the entry with its id, or its only entry). A span that names no tool keeps the name '' — it is
 * paired with its proposal by id, or counted as `unvalidated` (`no_name`), never under an empty label.
 */
function toolCallOf(a: AttrObject): { name: string; id?: string; args: unknown } {
  const id = str(a, 'ai.toolCall.id');
  const listed = responseCalls(a['ai.response.toolCalls'])[0]?.calls ?? [];
  const entry = listed.find((c) => id !== undefined && c.id === id) ?? (listed.length === 1 ? listed[0] : undefined);
  const args = firstAttr(a, ['ai.toolCall.args', 'ai.toolCall.input']) ?? entry?.args;
  const name = str(a, 'ai.toolCall.name') ?? entry?.name ?? '';
  const call: { name: string; id?: string; args: unknown } = { name, args };
  const callId = id ?? entry?.id;
  if (callId !== undefined) call.id = callId;
  return call;
}

export const vercelAiReader: DialectReader = {
  name: 'vercel-ai',
  marks: { keys: ['ai.operationId', 'operation.name'], also: (span) => span.name.startsWith('ai.') },
  matches(span) {
    const a = span.attributes;
    if (typeof a['ai.operationId'] === 'string') return true;
    if (span.name.startsWith('ai.')) {
      if (span.scope === 'ai' || OUTER_OPS.has(span.name) || span.name === 'ai.toolCall') return true;
      // Another scope: an operation-shaped name and the SDK's own attributes.
      if (OPERATION_ID.test(span.name) && hasAiAttribute(a)) return true;
    }
    return typeof a['operation.name'] === 'string' && operationFromName(a) !== undefined;
  },
  read(span) {
    const a = span.attributes;
    const role = roleOf(operationOf(span));
    const f = baseFacts(span, 'vercel-ai', role);
    if (role === 'tool') {
      const call = toolCallOf(a);
      const result = firstAttr(a, ['ai.toolCall.result', 'ai.toolCall.output']);
      f.execution = execution(span, call.name, call.id, call.args, result);
      return f;
    }
    const model = str(a, 'ai.response.model') ?? str(a, 'ai.model.id') ?? str(a, 'gen_ai.response.model');
    if (model !== undefined) f.model = model;
    const provider = servedBy(a, str(a, 'ai.model.provider') ?? str(a, 'gen_ai.system'));
    if (provider !== undefined) f.provider = provider;
    const inTok =
      num(a, 'ai.usage.inputTokens') ?? num(a, 'ai.usage.promptTokens') ?? num(a, 'gen_ai.usage.input_tokens');
    if (inTok !== undefined) f.inputTokens = inTok;
    const outTok =
      num(a, 'ai.usage.outputTokens') ?? num(a, 'ai.usage.completionTokens') ?? num(a, 'gen_ai.usage.output_tokens');
    if (outTok !== undefined) f.outputTokens = outTok;
    const offered = parseToolDefs(a['ai.prompt.tools']);
    if (offered !== undefined) f.offered = offered;
    const user = userMessageOf(a);
    if (user !== undefined) f.userMessage = user;
    const text = str(a, 'ai.response.text');
    if (text !== undefined) f.outputText = text;
    if (role === 'model') {
      f.proposals = proposalsOf(responseCalls(a['ai.response.toolCalls']));
      const history = a['ai.prompt.messages'];
      if (history !== undefined) f.replays = replaysOf(readMessages(jsonValue(history)));
      const prompt = systemMessageVersion(history);
      if (prompt !== undefined) f.promptVersion = prompt;
    }
    return f;
  },
};
