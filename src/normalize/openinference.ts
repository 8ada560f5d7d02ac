/**
 * OpenInference (Arize Phoenix, LangChain/LangGraph, LlamaIndex, OpenAI Agents): everything is
 * flattened into numbered keys (`llm.input_messages.{m}.message.*`, `llm.tools.{i}.tool.json_schema`).
 */
import type { AttrObject, AttrValue, Span, SpanFacts, ToolDef } from '../model.js';
import type { DialectReader } from './dialect.js';
import { servedBy } from './provider.js';
import { promptVersion } from '../tools/definition-hash.js';
import { textStatus } from './exec-status.js';
import { baseFacts, execution } from './facts.js';
import { groupIndexed, gstr, type IndexedGroup } from './indexed.js';
import { assistantText, emptyMsg, firstUserText, proposalsOf, replaysOf, type Msg } from './messages.js';
import {
  addLangChainInvalidCalls,
  fillAdkArguments,
  invocationDefinitions,
  outputValueProposals,
  readToolSpan,
} from './openinference-gaps.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { num, str } from '../util/values.js';

const KIND = 'openinference.span.kind';

function roleOf(kind: string): SpanFacts['role'] {
  switch (kind.toUpperCase()) {
    case 'LLM':
      return 'model';
    case 'TOOL':
      return 'tool';
    case 'AGENT':
      return 'agent';
    default:
      return 'other';
  }
}

/** Text of a message: `message.content`, else its `message.contents.{c}.message_content.text` parts. */
function messageText(f: Map<string, AttrValue>): string | undefined {
  const content = gstr(f, 'message.content');
  if (content !== undefined) return content;
  const texts: string[] = [];
  for (const c of groupIndexed(f, 'message.contents')) {
    const type = gstr(c.fields, 'message_content.type');
    const text = gstr(c.fields, 'message_content.text');
    if (text !== undefined && (type === undefined || type === 'text')) texts.push(text);
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}

function message(g: IndexedGroup): Msg {
  const f = g.fields;
  const m = emptyMsg(gstr(f, 'message.role'));
  const text = messageText(f);
  if (m.role === 'tool') {
    const r: Msg['results'][number] = { content: text };
    const id = gstr(f, 'message.tool_call_id');
    if (id !== undefined) r.id = id;
    m.results.push(r);
  } else if (text !== undefined) {
    m.texts.push(text);
  }
  for (const tc of groupIndexed(f, 'message.tool_calls')) {
    const name = gstr(tc.fields, 'tool_call.function.name');
    if (name === undefined) continue;
    const args = tc.fields.get('tool_call.function.arguments');
    const id = gstr(tc.fields, 'tool_call.id');
    m.calls.push(id === undefined ? { name, args } : { id, name, args });
  }
  // Older OpenInference recorded the functions API on the message itself.
  const fname = gstr(f, 'message.function_call_name');
  if (fname !== undefined) m.calls.push({ name: fname, args: f.get('message.function_call_arguments_json') });
  return m;
}

function messages(a: AttrObject, prefix: string): Msg[] {
  return groupIndexed(a, prefix).map(message);
}

function offeredTools(a: AttrObject): ToolDef[] | undefined {
  const groups = groupIndexed(a, 'llm.tools');
  if (groups.length === 0) return undefined;
  const defs: ToolDef[] = [];
  for (const g of groups) {
    // json_schema is the provider-native definition as a JSON string; memoised like gen_ai definitions.
    const parsed = parseToolDefs(g.fields.get('tool.json_schema'));
    if (parsed) for (const d of parsed) defs.push(d);
  }
  return defs.length > 0 ? defs : undefined;
}

function readTool(span: Span, f: SpanFacts): void {
  const t = readToolSpan(span);
  if (!t.isExecution) {
    f.role = 'other';
    return;
  }
  if (t.definition) f.offered = [t.definition];
  const e = execution(span, t.name, t.callId, t.args, span.attributes['output.value']);
  if (t.failed && e.status === 'ok') e.status = textStatus(e.result) ?? 'error';
  f.execution = e;
}

export const openinferenceReader: DialectReader = {
  name: 'openinference',
  marks: { keys: [KIND] },
  matches(span) {
    return typeof span.attributes[KIND] === 'string';
  },
  read(span) {
    const a = span.attributes;
    const role = roleOf(str(a, KIND) ?? '');
    const f = baseFacts(span, 'openinference', role);
    const model = str(a, 'llm.model_name');
    if (model !== undefined) f.model = model;
    const provider = servedBy(a, str(a, 'llm.provider') ?? str(a, 'llm.system'));
    if (provider !== undefined) f.provider = provider;
    const inTok = num(a, 'llm.token_count.prompt');
    if (inTok !== undefined) f.inputTokens = inTok;
    const outTok = num(a, 'llm.token_count.completion');
    if (outTok !== undefined) f.outputTokens = outTok;
    if (role === 'tool') {
      readTool(span, f);
      return f;
    }
    const offered = offeredTools(a) ?? invocationDefinitions(a);
    if (offered !== undefined) f.offered = offered;
    const input = messages(a, 'llm.input_messages');
    const output = messages(a, 'llm.output_messages');
    if (role === 'model') {
      f.proposals = output.length > 0 ? proposalsOf(output) : outputValueProposals(a);
      fillAdkArguments(a, f);
      addLangChainInvalidCalls(a, f);
      // The spec's TOOL spans carry the tool's schema (`tool.parameters`); OpenAI Agents sends it nowhere else.
      if (f.offered === undefined && f.proposals.length > 0) f.schemasOnToolSpans = true;
      f.replays = replaysOf(input);
      // The system prompt's version: the first input message's, when it is the system's.
      const role0 = str(a, 'llm.input_messages.0.message.role');
      const system =
        role0 === 'system' || role0 === 'developer' ? str(a, 'llm.input_messages.0.message.content') : undefined;
      const prompt = system === undefined ? undefined : promptVersion(system);
      if (prompt !== undefined) f.promptVersion = prompt;
    }
    const user = firstUserText(input);
    if (user !== undefined) f.userMessage = user;
    const text = assistantText(output);
    if (text !== undefined) f.outputText = text;
    return f;
  },
};
