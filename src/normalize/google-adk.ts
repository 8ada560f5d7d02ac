/**
 * Google ADK's own telemetry (google/adk-python `telemetry.py`, scope `gcp.vertex.agent`), when no
 * OpenInference instrumentor enriches the spans (that case is read by `openinference`, which takes
 * what OpenInference leaves out from these same attributes):
 *
 *   `call_llm`: gen_ai.system = gcp.vertex.agent, gen_ai.request.model,
 *     gcp.vertex.agent.llm_request   JSON {model, config:{tools:[{function_declarations:[…]}]}, contents[]}
 *     gcp.vertex.agent.llm_response  JSON {content:{role:"model", parts:[{function_call:{id?, name, args}}]}}
 *   `execute_tool {name}`: gen_ai.operation.name = execute_tool, gen_ai.tool.name,
 *     gen_ai.tool.call.id ('<not specified>' when unknown), gcp.vertex.agent.tool_call_args (JSON),
 *     gcp.vertex.agent.tool_response; a span named `(merged tools)` summarises parallel calls.
 *
 * The model's function calls usually carry no id (ADK assigns `adk-…` ids afterwards, which the
 * tool spans carry): the merge pairs them by name and arguments. Function declarations use
 * Gemini's Schema (upper-case types), which tools/tooldefs.ts turns into JSON Schema.
 */
import type { AttrObject, Span, SpanFacts } from '../model.js';
import type { DialectReader } from './dialect.js';
import { baseFacts, execution, lazyHistory } from './facts.js';
import { genAiRole, readGenAiCommon } from './genai.js';
import { assistantText, proposalsOf, readMessages } from './messages.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { isRecord, jsonValue, str } from '../util/values.js';

const SYSTEM = 'gcp.vertex.agent';
const REQUEST = 'gcp.vertex.agent.llm_request';
const RESPONSE = 'gcp.vertex.agent.llm_response';
const ARGS = 'gcp.vertex.agent.tool_call_args';
const MERGED = '(merged tools)';
const NO_ID = '<not specified>';

/** ADK writes '{}' for the request and response of tool spans: present, but empty. */
function payload(a: AttrObject, key: string): Record<string, unknown> | undefined {
  const v = jsonValue(a[key]);
  return isRecord(v) && Object.keys(v).length > 0 ? (v as Record<string, unknown>) : undefined;
}

function readTool(span: Span, f: SpanFacts): void {
  const a = span.attributes;
  const name = str(a, 'gen_ai.tool.name') ?? '';
  if (name === MERGED) {
    f.role = 'other';
    return;
  }
  const id = str(a, 'gen_ai.tool.call.id');
  const args = str(a, ARGS);
  const callId = id === NO_ID ? undefined : id;
  f.execution = execution(span, name, callId, args === 'N/A' ? undefined : args, a['gcp.vertex.agent.tool_response']);
}

type Payload = Record<string, unknown> | undefined;

function readModel(f: SpanFacts, request: Payload, response: Payload): void {
  const config = request?.['config'];
  if (isRecord(config)) {
    const offered = parseToolDefs(config['tools']);
    if (offered !== undefined) f.offered = offered;
  }
  const content = response?.['content'];
  if (isRecord(content)) {
    const out = readMessages([content]);
    f.proposals = proposalsOf(out);
    const text = assistantText(out);
    if (text !== undefined) f.outputText = text;
  }
  const contents = request?.['contents'];
  if (Array.isArray(contents)) {
    lazyHistory(f, contents, readMessages);
  }
}

export const googleAdkReader: DialectReader = {
  name: 'google-adk',
  marks: { keys: [REQUEST, 'gen_ai.system'] },
  matches(span) {
    const a = span.attributes;
    // ADK writes llm_request on its model and tool spans alike ('{}' on tool spans).
    return a[REQUEST] !== undefined || a['gen_ai.system'] === SYSTEM;
  },
  read(span) {
    const a = span.attributes;
    if (a['gen_ai.operation.name'] === 'execute_tool' || a[ARGS] !== undefined) {
      const f = baseFacts(span, 'google-adk', 'tool');
      readGenAiCommon(a, f);
      readTool(span, f);
      return f;
    }
    const request = payload(a, REQUEST);
    const response = payload(a, RESPONSE);
    const role = request !== undefined || response !== undefined ? 'model' : genAiRole(a);
    const f = baseFacts(span, 'google-adk', role);
    readGenAiCommon(a, f);
    if (role === 'model') readModel(f, request, response);
    return f;
  },
};
