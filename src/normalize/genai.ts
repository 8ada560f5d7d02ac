/**
 * OpenTelemetry GenAI semantic conventions, current form (v1.37+): messages and definitions as
 * `any`-typed attributes, `execute_tool` spans, and Pydantic AI's tool spans without an operation name.
 */
import type { AttrObject, AttrValue, Span, SpanFacts, ToolDef } from '../model.js';
import type { DialectReader } from './dialect.js';
import { servedBy } from './provider.js';
import { systemMessageVersion } from './system-message.js';
import { baseFacts, execution, lazyHistory, lazyOutputText, type MessagesReader } from './facts.js';
import { assistantText, firstUserTextOfJson, mayHoldCalls, proposalsOf, readMessages, type Msg } from './messages.js';
import { promptVersion } from '../tools/definition-hash.js';
import { parseToolDefs, toToolDef } from '../tools/tooldefs.js';
import { argValue, firstAttr, hasAnyKey, jsonValue, jsonValueShared, num, str } from '../util/values.js';

const MODEL_OPS = new Set(['chat', 'generate_content', 'text_completion']);
const AGENT_OPS = new Set(['invoke_agent', 'create_agent']);

/** Any span naming a tool or a tool call id is a tool execution, with or without an operation name. */
export function isGenAiToolSpan(a: AttrObject): boolean {
  return a['gen_ai.tool.name'] !== undefined || a['gen_ai.tool.call.id'] !== undefined;
}

export function genAiRole(a: AttrObject): SpanFacts['role'] {
  const op = str(a, 'gen_ai.operation.name');
  if (op !== undefined && MODEL_OPS.has(op)) return 'model';
  if (op === 'execute_tool' || isGenAiToolSpan(a)) return 'tool';
  if (op !== undefined) return AGENT_OPS.has(op) ? 'agent' : 'other';
  // Before v1.27 model spans had no operation name: a model or messages is enough.
  if (
    a['gen_ai.request.model'] !== undefined ||
    a['gen_ai.response.model'] !== undefined ||
    a['gen_ai.output.messages'] !== undefined ||
    a['gen_ai.input.messages'] !== undefined
  ) {
    return 'model';
  }
  return 'other';
}

/** Model, provider, tokens and offered tools: the same attributes on every GenAI span. */
const TOOL_ARG_KEYS = ['gen_ai.tool.call.arguments', 'tool_arguments', 'input', 'input.value'] as const;
const TOOL_RESULT_KEYS = ['gen_ai.tool.call.result', 'tool_response', 'output', 'output.value'] as const;

export function readGenAiCommon(a: AttrObject, f: SpanFacts): void {
  const model = str(a, 'gen_ai.response.model') ?? str(a, 'gen_ai.request.model');
  if (model !== undefined) f.model = model;
  const provider = servedBy(a, str(a, 'gen_ai.provider.name') ?? str(a, 'gen_ai.system'));
  if (provider !== undefined) f.provider = provider;
  const inTok = num(a, 'gen_ai.usage.input_tokens') ?? num(a, 'gen_ai.usage.prompt_tokens');
  if (inTok !== undefined) f.inputTokens = inTok;
  const outTok = num(a, 'gen_ai.usage.output_tokens') ?? num(a, 'gen_ai.usage.completion_tokens');
  if (outTok !== undefined) f.outputTokens = outTok;
  const offered = parseToolDefs(a['gen_ai.tool.definitions']);
  if (offered !== undefined) f.offered = offered;
  const instructions = str(a, 'gen_ai.system_instructions');
  const prompt = instructions === undefined ? undefined : promptVersion(instructions);
  if (prompt !== undefined) f.promptVersion = prompt;
}

function toolNameFromSpanName(name: string): string {
  return name.startsWith('execute_tool ') ? name.slice('execute_tool '.length) : '';
}

/** The semconv event that carries the content attributes when they are not on the span (v1.37+). */
const DETAILS_EVENT = 'gen_ai.client.inference.operation.details';

/** A content attribute from the span, else from its operation-details event (Strands' latest conventions). */
export function detailAttr(span: Span, key: string): AttrValue | undefined {
  const v = span.attributes[key];
  if (v !== undefined && v !== null) return v;
  for (const e of span.events) {
    if (e.name !== DETAILS_EVENT) continue;
    const ev = e.attributes[key];
    if (ev !== undefined && ev !== null) return ev;
  }
  return undefined;
}

/** Arguments of a tool span that only repeats its call as a `tool_call` part of its input messages. */
function argsFromInputParts(span: Span, callId: string | undefined): unknown {
  const input = detailAttr(span, 'gen_ai.input.messages');
  if (input === undefined) return undefined;
  const calls = proposalsOf(readMessages(jsonValue(input)));
  const byId = calls.find((x) => callId !== undefined && x.callId === callId);
  const c = byId ?? (calls.length === 1 ? calls[0] : undefined);
  return c === undefined ? undefined : argValue(c.args);
}

/**
 * The executed tool's own definition on its span (Strands: `gen_ai.tool.json_schema` beside
 * `gen_ai.tool.description`): the only place some frameworks export the schema (merge: withSchemaOf).
 */
function toolSpanDefinition(a: AttrObject, name: string): ToolDef[] | undefined {
  const schema = a['gen_ai.tool.json_schema'];
  if (schema === undefined || schema === null || name === '') return undefined;
  const def = toToolDef({ name, description: a['gen_ai.tool.description'], parameters: jsonValue(schema) });
  return def ? [def] : undefined;
}

/** Strands writes `gen_ai.tool.json_schema` on its tool spans and the definitions nowhere near its model spans. */
export function writesToolSchemas(a: AttrObject): boolean {
  return a['gen_ai.system'] === 'strands-agents' || a['gen_ai.provider.name'] === 'strands-agents';
}

/** Messages from a JSON-or-structured attribute (lazyHistory, lazyOutputText); its first user message without reading the rest. */
const readJsonMessages: MessagesReader = Object.assign((v: unknown): Msg[] => readMessages(jsonValue(v)), {
  firstUser: firstUserTextOfJson,
});

/** Reads a span with the given role; genai-legacy reuses this and fills in what only old forms carry. */
export function readGenAi(span: Span, dialect: string, role: SpanFacts['role']): SpanFacts {
  const a = span.attributes;
  const input = role === 'tool' ? undefined : detailAttr(span, 'gen_ai.input.messages');
  // A model span defines its history (and a text-only output's text) lazily below: its facts are made ready for that.
  const f = baseFacts(span, dialect, role);
  readGenAiCommon(a, f);
  if (role === 'tool') {
    const callId = str(a, 'gen_ai.tool.call.id');
    f.execution = execution(
      span,
      str(a, 'gen_ai.tool.name') ?? toolNameFromSpanName(span.name),
      callId,
      // Koog writes the arguments and result of its gen_ai tool spans as OpenInference input/output.value.
      firstAttr(a, TOOL_ARG_KEYS) ?? argsFromInputParts(span, callId),
      firstAttr(a, TOOL_RESULT_KEYS),
    );
    f.offered ??= toolSpanDefinition(a, f.execution.name);
    return f;
  }
  const output = detailAttr(span, 'gen_ai.output.messages');
  // A model's output that can hold no call is text alone: parsed only if its text is read (trajectories).
  const textOnly = role === 'model' && typeof output === 'string' && !mayHoldCalls(output);
  // Its finish reasons are read from the same parse (finish-reasons.ts).
  const outMsgs = output === undefined || textOnly ? [] : readMessages(jsonValueShared(output));
  if (input !== undefined) {
    // The system prompt's version from the history's system message, where no instructions said it.
    if (f.promptVersion === undefined && role === 'model') {
      const prompt = systemMessageVersion(input);
      if (prompt !== undefined) f.promptVersion = prompt;
    }
    // Agent and other spans may repeat the conversation; only model spans own calls.
    lazyHistory(f, input, readJsonMessages, role === 'model');
  }
  if (role === 'model') f.proposals = proposalsOf(outMsgs);
  if (f.proposals.length > 0 && f.offered === undefined && writesToolSchemas(a)) f.schemasOnToolSpans = true;
  if (textOnly) {
    lazyOutputText(f, output, readJsonMessages);
    return f;
  }
  const text = assistantText(outMsgs);
  if (text !== undefined) f.outputText = text;
  return f;
}

/** Any of these makes a span the current conventions' (isGenAiToolSpan's keys among them). */
const MARKS = [
  'gen_ai.operation.name',
  'gen_ai.tool.name',
  'gen_ai.tool.call.id',
  'gen_ai.tool.definitions',
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.provider.name',
  'gen_ai.system',
  'gen_ai.request.model',
];

export const genaiReader: DialectReader = {
  name: 'genai',
  marks: { keys: MARKS },
  matches(span) {
    return hasAnyKey(span.attributes, MARKS);
  },
  read(span) {
    return readGenAi(span, 'genai', genAiRole(span.attributes));
  },
};
