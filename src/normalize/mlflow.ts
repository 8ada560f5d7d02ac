/**
 * MLflow Tracing exported over OTLP (mlflow/mlflow, `tracing/constant.py`). MLflow JSON-encodes
 * every attribute value, so a string arrives quoted (`mlflow.spanType` = `"\"TOOL\""`):
 *
 *   mlflow.spanType     CHAT_MODEL | LLM | TOOL | AGENT | CHAIN | …
 *   mlflow.spanInputs   the call's inputs — for autologged model calls the provider request
 *                       ({messages, model, tools} for OpenAI), for tools the function's arguments
 *   mlflow.spanOutputs  the outputs — the provider response (an OpenAI `chat.completion`, …)
 *   mlflow.chat.tools   the tools offered (OpenAI shape)
 *   mlflow.chat.tokenUsage {input_tokens, output_tokens, total_tokens}, mlflow.llm.model
 *
 * Request and response payloads are the provider's own shapes, read like Langfuse's (langfuse.ts);
 * the system prompt's version from the request (its system message, `system` or `instructions`).
 */
import type { AttrObject, AttrValue, Span, SpanFacts } from '../model.js';
import type { DialectReader } from './dialect.js';
import { baseFacts, execution, lazyHistory } from './facts.js';
import { messagesIn, offeredIn } from './langfuse.js';
import { assistantText, proposalsOf } from './messages.js';
import { requestPromptVersion } from './system-message.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { isRecord, parseJson } from '../util/values.js';

/** MLflow's encoding undone: JSON when it parses, the raw value otherwise (as MLflow's reader does). */
function decoded(v: AttrValue | undefined): unknown {
  if (typeof v !== 'string' || v === '') return v;
  const parsed = parseJson(v);
  return parsed === undefined ? v : parsed;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function roleOf(type: unknown): SpanFacts['role'] {
  switch (typeof type === 'string' ? type.toUpperCase() : '') {
    case 'CHAT_MODEL':
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

function tokens(a: AttrObject, f: SpanFacts): void {
  const u = decoded(a['mlflow.chat.tokenUsage']);
  if (!isRecord(u)) return;
  if (typeof u['input_tokens'] === 'number') f.inputTokens = u['input_tokens'];
  if (typeof u['output_tokens'] === 'number') f.outputTokens = u['output_tokens'];
}

function readModel(a: AttrObject, f: SpanFacts): void {
  const inputs = decoded(a['mlflow.spanInputs']);
  const outputs = decoded(a['mlflow.spanOutputs']);
  const modelOf = (v: unknown) => (isRecord(v) ? text(v['model']) : undefined);
  const model = text(decoded(a['mlflow.llm.model'])) ?? modelOf(outputs) ?? modelOf(inputs);
  if (model !== undefined) f.model = model;
  const provider = text(decoded(a['mlflow.llm.provider']));
  if (provider !== undefined) f.provider = provider;
  tokens(a, f);
  const offered = parseToolDefs(decoded(a['mlflow.chat.tools'])) ?? offeredIn(inputs);
  if (offered !== undefined) f.offered = offered;
  const prompt = requestPromptVersion(inputs);
  if (prompt !== undefined) f.promptVersion = prompt;
  const out = outputs === undefined ? [] : messagesIn(outputs);
  f.proposals = proposalsOf(out);
  const answer = assistantText(out);
  if (answer !== undefined) f.outputText = answer;
  if (inputs !== undefined) {
    lazyHistory(f, inputs, messagesIn);
  }
}

export const mlflowReader: DialectReader = {
  name: 'mlflow',
  marks: { keys: ['mlflow.spanType'] },
  matches(span) {
    return typeof span.attributes['mlflow.spanType'] === 'string';
  },
  read(span: Span) {
    const a = span.attributes;
    const role = roleOf(decoded(a['mlflow.spanType']));
    const f = baseFacts(span, 'mlflow', role);
    if (role === 'model') readModel(a, f);
    else if (role === 'tool') {
      const name = text(decoded(a['mlflow.spanFunctionName'])) ?? span.name;
      f.execution = execution(span, name, undefined, decoded(a['mlflow.spanInputs']), decoded(a['mlflow.spanOutputs']));
    }
    return f;
  },
};
