/**
 * Pydantic Logfire's default format (`logfire.instrument_openai()` / `instrument_anthropic()`,
 * `version=1`, scopes `logfire.openai` / `logfire.anthropic`): the request and the response as two
 * JSON attributes, beside GenAI attributes that carry the model, tokens and definitions but no messages.
 *
 * - `request_data` — the SDK's request body: `messages`, `model`, `tools` (OpenAI
 *   `{type:'function', function:{name, description, parameters}}` or Anthropic `{name, input_schema}`).
 * - `response_data` — `{message, usage}`: the OpenAI message `{role, content, tool_calls:[{id, type,
 *   function:{name, arguments}}]}` (streamed: the same with `index` and `parsed_arguments`), or
 *   Anthropic's `{role, content:[{type:'tool_use', …}]}`.
 *
 * Streaming: the request span (`Chat Completion with …`) ends without `response_data`; the proposal
 * is on a separate zero-length span (`streaming response from … took …`, `logfire.span_type=log`)
 * with the same `request_data` and the assembled `response_data`. Each span carries its own calls
 * once, so nothing is paired here. Version `latest` writes `gen_ai.input/output.messages`, which
 * `genai` reads; the content attributes win when both are present.
 */
import type { AttrObject, SpanFacts } from '../model.js';
import type { DialectReader } from './dialect.js';
import { lazyHistory } from './facts.js';
import { genAiRole, readGenAi } from './genai.js';
import { assistantText, proposalsOf, readMessage, readMessages, type Msg } from './messages.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { isRecord, jsonValue } from '../util/values.js';

function requestMessages(a: AttrObject): unknown {
  const req = jsonValue(a['request_data']);
  return isRecord(req) ? req['messages'] : undefined;
}

function readRequestMessages(a: unknown): Msg[] {
  return readMessages(requestMessages(a as AttrObject));
}

function requestTools(a: AttrObject): SpanFacts['offered'] {
  const req = jsonValue(a['request_data']);
  return isRecord(req) && Array.isArray(req['tools']) ? parseToolDefs(req['tools']) : undefined;
}

/** The response message of `response_data`, read as the assistant's output. */
function responseMessage(a: AttrObject) {
  const res = jsonValue(a['response_data']);
  if (!isRecord(res)) return undefined;
  return readMessage(res['message'], 'assistant');
}

export const logfireReader: DialectReader = {
  name: 'logfire',
  marks: { keys: ['request_data'] },
  matches(span) {
    const a = span.attributes;
    return a['request_data'] !== undefined && a['logfire.msg_template'] !== undefined;
  },
  read(span) {
    const a = span.attributes;
    const role = genAiRole(a);
    const f = readGenAi(span, 'logfire', role);
    f.offered ??= requestTools(a);
    if (role !== 'model') return f;
    if (f.proposals.length === 0 && f.outputText === undefined) {
      const out = responseMessage(a);
      if (out) {
        f.proposals = proposalsOf([out]);
        const text = assistantText([out]);
        // A streamed tool-call response has `content: ""`: no text, not an empty one.
        if (text) f.outputText = text;
      }
    }
    if (a['gen_ai.input.messages'] === undefined && a['request_data'] !== undefined) {
      lazyHistory(f, a, readRequestMessages);
    }
    return f;
  },
};
