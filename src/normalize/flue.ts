/**
 * Flue (withastro/flue, `@flue/opentelemetry`). Before 2.0 its spans carried their content in
 * `flue.*` attributes:
 *
 *   model turn `chat {model}` (gen_ai.operation.name = chat):
 *     flue.turn.input   JSON {systemPrompt?, messages[], tools[{name, description, parameters}]}
 *     flue.turn.output  JSON assistant message {role, content[{type:"toolCall", id, name, arguments}]}
 *   tool span `flue.tool {name}`:
 *     flue.tool.name, flue.tool.call_id, flue.tool.arguments (JSON), flue.tool.result
 *
 * From 2.0 it writes the GenAI conventions (read by `genai`), except tool payloads that are not
 * plain objects, which go to `flue.tool.call.arguments` / `flue.tool.call.result`. This reader reads
 * the span the GenAI way first and fills what only the `flue.*` keys hold.
 */
import type { AttrObject, Span, SpanFacts } from '../model.js';
import type { DialectReader } from './dialect.js';
import { execution, lazyHistory } from './facts.js';
import { genAiRole, readGenAi } from './genai.js';
import { assistantText, proposalsOf, readMessages, type Msg } from './messages.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { argValue, firstAttr, hasAnyKey, isRecord, jsonValue, str, type Rec } from '../util/values.js';

function isFlueToolSpan(a: AttrObject): boolean {
  return a['flue.tool.name'] !== undefined || a['flue.tool.call_id'] !== undefined;
}

/** pi-ai's `toolResult` messages → the OpenAI tool-message shape the message reader knows. */
function inputMessages(input: Rec): unknown[] {
  const list = input['messages'];
  if (!Array.isArray(list)) return [];
  return list.map((m) =>
    isRecord(m) && m['role'] === 'toolResult'
      ? { role: 'tool', tool_call_id: m['toolCallId'], content: m['content'] }
      : m,
  );
}

function fillTool(span: Span, f: SpanFacts): void {
  const a = span.attributes;
  const e = f.execution;
  const known = e === undefined ? undefined : argValue(e.args);
  f.execution = execution(
    span,
    str(a, 'flue.tool.name') ?? e?.name ?? '',
    str(a, 'flue.tool.call_id') ?? e?.callId,
    known ?? firstAttr(a, ['flue.tool.arguments', 'flue.tool.call.arguments']),
    e?.result ?? firstAttr(a, ['flue.tool.result', 'flue.tool.call.result']),
  );
}

function fillModel(span: Span, f: SpanFacts): void {
  const a = span.attributes;
  const output = jsonValue(a['flue.turn.output']);
  if (f.proposals.length === 0 && output !== undefined) {
    const out = readMessages(output);
    f.proposals = proposalsOf(out);
    f.outputText ??= assistantText(out);
  }
  const input = jsonValue(a['flue.turn.input']);
  if (!isRecord(input)) return;
  f.offered ??= parseToolDefs(input['tools']);
  if (f.replays.length === 0) lazyHistory(f, input, readInputMessages, true, f.userMessage === undefined);
}

function readInputMessages(input: unknown): Msg[] {
  return readMessages(inputMessages(input as Rec));
}

/** Flue < 2 names every tool span (`flue.tool.name`); Flue 2 puts only non-object payloads in flue.*. */
const MARKS = [
  'flue.tool.name',
  'flue.turn.output',
  'flue.turn.input',
  'flue.tool.call.arguments',
  'flue.tool.call.result',
];

export const flueReader: DialectReader = {
  name: 'flue',
  marks: { keys: MARKS },
  matches(span) {
    return hasAnyKey(span.attributes, MARKS);
  },
  read(span) {
    const a = span.attributes;
    const role = isFlueToolSpan(a) ? 'tool' : genAiRole(a);
    const f = readGenAi(span, 'flue', role === 'other' && a['flue.turn.output'] !== undefined ? 'model' : role);
    if (f.role === 'tool') fillTool(span, f);
    else if (f.role === 'model') fillModel(span, f);
    return f;
  },
};
