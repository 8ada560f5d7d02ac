/**
 * What OpenInference instrumentations write beyond the flattened `llm.*` / `tool.*` keys, or write
 * differently from the specification — one function per gap, each named for the emitters it serves:
 *
 * - `tool.parameters` is the tool's schema in the spec (CrewAI, LlamaIndex) but the call's
 *   arguments in Agno, Google ADK, BeeAI and the Vercel processor: a schema only when it has a
 *   JSON Schema keyword (src/tools/schema-shape.ts), otherwise arguments.
 * - the call id of a TOOL span is `tool.id` in the spec, `tool_call.id` in some instrumentations.
 * - definitions only in `llm.invocation_parameters` (`tools`, or the older `functions`).
 * - Agno (before it wrote `llm.output_messages`) left the proposal only in `output.value`, the raw
 *   provider response (an OpenAI `chat.completion`).
 * - Google ADK drops empty arguments from `tool_call.function.arguments` and the TOOL span's
 *   `input.value`; ADK's own `gcp.vertex.agent.llm_response` / `tool_call_args` on the same spans
 *   still carry them.
 * - BeeAI records each tool event (start, success, error, finish, retry) as its own TOOL span.
 * - LangChain moves a call whose arguments are not JSON to the message's `invalid_tool_calls`, which
 *   OpenInference does not flatten: only `output.value` (the `LLMResult`) still has it, with the raw
 *   argument string — the InvalidJson call.
 * - The OpenAI Agents processor records a handoff as a TOOL span `handoff to {agent}` with the agent
 *   names as input and output: the model's `transfer_to_…` call it stands for is counted from the
 *   model span; the handoff span is no execution of it (its "arguments" are an agent name).
 */
import type { AttrObject, CallSighting, Span, SpanFacts, ToolDef } from '../model.js';
import { looksLikeSchema } from '../tools/schema-shape.js';
import { messagesIn } from './langfuse.js';
import { proposalsOf, type MsgCall } from './messages.js';
import { parseToolDefs, toToolDef } from '../tools/tooldefs.js';
import { isRecord, jsonValue, str } from '../util/values.js';

/** BeeAI tool event spans: only the terminal ones (success, error) stand for the execution. */
const BEEAI_EVENTS = new Set(['start', 'success', 'error', 'finish', 'retry']);
const BEEAI_TERMINAL = new Set(['success', 'error']);

export interface ToolSpanReading {
  /** false: the span is part of an execution recorded elsewhere (BeeAI start/finish/retry). */
  isExecution: boolean;
  name: string;
  callId?: string;
  args: unknown;
  /** The tool's definition, when `tool.parameters` really is a schema. */
  definition?: ToolDef;
  /** BeeAI's `error` event span: the execution failed, whatever the span's status says. */
  failed?: true;
}

/** `{args: [], kwargs: {…}}` of a wrapped Python call (LlamaIndex `FunctionTool.call`) → its keyword arguments. */
function unwrapBoundArguments(v: unknown): unknown {
  const parsed = jsonValue(v);
  if (!isRecord(parsed)) return v;
  const keys = Object.keys(parsed);
  if (keys.length === 0 || !keys.every((k) => k === 'args' || k === 'kwargs')) return v;
  const args = parsed['args'];
  const kwargs = parsed['kwargs'];
  if (Array.isArray(args) && args.length > 0) return v;
  return isRecord(kwargs) ? kwargs : {};
}

/** The name BeeAI's tool event spans imply: `tool.search.wikipedia.success` → `search.wikipedia`. */
function beeaiToolName(target: string | undefined, event: string): string | undefined {
  if (target === undefined || !target.endsWith(`.${event}`)) return undefined;
  const base = target.slice(0, -event.length - 1);
  return base.startsWith('tool.') ? base.slice('tool.'.length) : base;
}

export function readToolSpan(span: Span): ToolSpanReading {
  const a = span.attributes;
  const beeaiEvent = str(a, 'name');
  const target = str(a, 'target');
  const isBeeaiEvent = target !== undefined && beeaiEvent !== undefined && BEEAI_EVENTS.has(beeaiEvent);
  const name =
    str(a, 'tool.name') ??
    str(a, 'tool_call.function.name') ??
    (isBeeaiEvent ? beeaiToolName(target, beeaiEvent!) : undefined) ??
    span.name;
  const params = a['tool.parameters'];
  const paramsValue = jsonValue(params);
  const paramsAreSchema = looksLikeSchema(paramsValue);
  let args: unknown = a['input.value'] ?? a['tool_call.function.arguments'];
  const paramsAreArgs = params !== undefined && params !== null && !paramsAreSchema && paramsValue !== null;
  if (args === undefined && paramsAreArgs) args = params;
  // ADK leaves empty arguments out of the OpenInference keys; its own attribute keeps them ('N/A' on merged spans).
  const adkArgs = str(a, 'gcp.vertex.agent.tool_call_args');
  if (args === undefined && adkArgs !== undefined && adkArgs !== 'N/A') args = adkArgs;
  const isHandoff = span.name.startsWith('handoff to ') && a['tool.name'] === undefined;
  const reading: ToolSpanReading = {
    isExecution: !isHandoff && (!isBeeaiEvent || BEEAI_TERMINAL.has(beeaiEvent!)),
    name,
    args: unwrapBoundArguments(args),
  };
  if (isBeeaiEvent && beeaiEvent === 'error') reading.failed = true;
  const callId = str(a, 'tool_call.id') ?? str(a, 'tool.id') ?? str(a, 'gen_ai.tool.call.id');
  if (callId !== undefined && callId !== '<not specified>') reading.callId = callId;
  if (paramsAreSchema) {
    const def = toToolDef({ name, description: a['tool.description'], parameters: paramsValue });
    if (def) reading.definition = def;
  }
  return reading;
}

/** Definitions carried only in `llm.invocation_parameters` (`tools`, or the pre-tools `functions`). */
export function invocationDefinitions(a: AttrObject): readonly ToolDef[] | undefined {
  const params = jsonValue(a['llm.invocation_parameters']);
  if (!isRecord(params)) return undefined;
  const list = params['tools'] ?? params['functions'];
  return Array.isArray(list) ? parseToolDefs(list) : undefined;
}

/** Proposals in `output.value` when it holds a raw provider response (Agno's LLM spans). */
export function outputValueProposals(a: AttrObject): CallSighting[] {
  const v = jsonValue(a['output.value']);
  if (!isRecord(v) && !Array.isArray(v)) return [];
  return proposalsOf(messagesIn(v));
}

/**
 * Google ADK: proposals from the OpenInference keys lack `{}` arguments (and the id ADK assigns
 * later); ADK's own `gcp.vertex.agent.llm_response` has the model's function calls whole. Each
 * proposal without arguments takes them from the ADK call at the same position with the same name.
 */
export function fillAdkArguments(a: AttrObject, f: SpanFacts): void {
  if (!f.proposals.some((p) => p.args.kind === 'none')) return;
  const response = jsonValue(a['gcp.vertex.agent.llm_response']);
  if (!isRecord(response)) return;
  const adk = proposalsOf(messagesIn(response['content'] === undefined ? response : [response['content']]));
  f.proposals = f.proposals.map((p, i) => {
    const match = adk[i]?.name === p.name ? adk[i] : undefined;
    if (p.args.kind !== 'none' || match === undefined || match.args.kind === 'none') return p;
    const filled: CallSighting = { ...p, args: match.args };
    if (filled.callId === undefined && match.callId !== undefined) filled.callId = match.callId;
    return filled;
  });
}

/** The message of each prompt's first generation in a LangChain `LLMResult` (serialised `lc` constructors unwrapped). */
function firstGenerations(v: unknown): Record<string, unknown>[] {
  const gens = isRecord(v) ? v['generations'] : undefined;
  if (!Array.isArray(gens)) return [];
  const out: Record<string, unknown>[] = [];
  for (const g of gens) {
    const first = Array.isArray(g) ? g[0] : g;
    const m = isRecord(first) ? first['message'] : undefined;
    if (!isRecord(m)) continue;
    out.push(isRecord(m['kwargs']) ? (m['kwargs'] as Record<string, unknown>) : m);
  }
  return out;
}

/**
 * LangChain (LangGraph) via OpenInference: the `invalid_tool_calls` of `output.value`, appended to the
 * flattened proposals unless a proposal with the same id is already there. The text is searched
 * first, so the (large) result is parsed only on spans that have such a call.
 */
export function addLangChainInvalidCalls(a: AttrObject, f: SpanFacts): void {
  const raw = a['output.value'];
  if (typeof raw !== 'string' || !raw.includes('invalid_tool_call')) return;
  const seen = new Set(f.proposals.map((p) => p.callId));
  const calls: MsgCall[] = [];
  for (const m of firstGenerations(jsonValue(raw))) {
    const list = m['invalid_tool_calls'];
    if (!Array.isArray(list)) continue;
    for (const tc of list) {
      if (!isRecord(tc) || typeof tc['name'] !== 'string' || tc['name'] === '') continue;
      const id = typeof tc['id'] === 'string' && tc['id'] !== '' ? tc['id'] : undefined;
      if (id !== undefined && seen.has(id)) continue;
      calls.push(
        id === undefined ? { name: tc['name'], args: tc['args'] } : { id, name: tc['name'], args: tc['args'] },
      );
    }
  }
  if (calls.length === 0) return;
  const base = f.proposals.length;
  const added = proposalsOf([{ role: 'assistant', texts: [], calls, results: [] }]).map((p) => ({
    ...p,
    index: base + p.index,
  }));
  f.proposals = [...f.proposals, ...added];
}
