/**
 * Langfuse observations (pulled over its public API; README: Langfuse, What is read) → SpanFacts. Pure: no
 * client, no clock. The public API returns no parsed tool calls, so they are read from a
 * generation's `input` (tools offered, history) and `output` (proposals) in every shape SDKs
 * write there, and from TOOL observations (name, input = arguments, output = result).
 *
 * Ids: Langfuse ids are not hex. Nothing downstream needs hex — the ledger, the store and the
 * failure records use trace/span ids as opaque keys — so the observation's own traceId and id are
 * used as they are: stable across re-reads, which is what one-call-one-count needs.
 */
import type { SpanFacts, ToolExecution } from '../model.js';
import { textStatus } from './exec-status.js';
import { requestPromptVersion } from './system-message.js';
import { assistantText, firstUserText, proposalsOf, readMessages, replaysOf, type Msg } from './messages.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { isRecord, jsonValue, resultText, toToolArgs, type Rec } from '../util/values.js';

/** The fields of a v2 (`fields=core,basic,io,metadata,model,usage,metrics`) or v1 observation we read. */
export interface LangfuseObservation {
  id: string;
  traceId?: string | null;
  type: string;
  name?: string | null;
  startTime: string;
  endTime?: string | null;
  parentObservationId?: string | null;
  level?: string | null;
  statusMessage?: string | null;
  /** v2: always a raw string; v1: parsed JSON. Both are accepted. */
  input?: unknown;
  output?: unknown;
  metadata?: unknown;
  /** v1's name of the model; v2 calls it `providedModelName` (its `model` field group). */
  model?: string | null;
  providedModelName?: string | null;
  usageDetails?: Record<string, number> | null;
  /** v1 only. */
  usage?: { input?: number | null; output?: number | null } | null;
  environment?: string | null;
  /** The Langfuse-managed prompt the generation was linked to (prompt management), when it was. */
  promptName?: string | null;
  promptVersion?: number | null;
}

export interface LangfuseNormalizeOptions {
  /** The service label when the observation's metadata names none (Langfuse has no service.name). */
  service: string;
}

const DIALECT = 'langfuse';

/** Raw JSON strings (v2) are parsed; a string that is not JSON stays text (a plain prompt). */
function value(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const parsed = jsonValue(v);
  return parsed === undefined ? v : parsed;
}

const timeMs = (s: string | null | undefined): number => {
  const t = s ? Date.parse(s) : NaN;
  return Number.isFinite(t) ? t : 0;
};

const nonEmpty = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const CALL_ID_KEYS = ['tool_call_id', 'toolCallId', 'call_id', 'callId', 'gen_ai.tool.call.id'] as const;

/**
 * The top-level metadata keys read here. Langfuse's v2 observations cut every metadata value over 200
 * characters unless its key is named in `expandMetadata` (an OTel resource's attributes easily are).
 */
export const METADATA_KEYS_READ: readonly string[] = ['resourceAttributes', 'service.name', 'service', ...CALL_ID_KEYS];

/** Metadata may be a JSON string too; OTel-ingested traces keep resource attributes there. */
function serviceOf(metadata: unknown, fallback: string): string {
  const m = value(metadata);
  if (!isRecord(m)) return fallback;
  const res = value(m['resourceAttributes']);
  return (
    nonEmpty(isRecord(res) ? res['service.name'] : undefined) ??
    nonEmpty(m['service.name']) ??
    nonEmpty(m['service']) ??
    fallback
  );
}

const LANGCHAIN_ROLES: Record<string, string> = {
  human: 'user',
  ai: 'assistant',
  system: 'system',
  tool: 'tool',
  function: 'function',
};

/**
 * A LangChain message ({type|role, content, additional_kwargs.tool_calls, tool_calls[{name,args,id}]})
 * in the OpenAI shape messages.ts reads. `additional_kwargs.tool_calls` is preferred: it holds the
 * model's raw argument string (so InvalidJson is detectable); LangChain's parsed `tool_calls` (and
 * `invalid_tool_calls`, the ones that did not parse) repeat the same calls and must not be read as well.
 */
function fromLangChain(m: Rec): Rec {
  const kw = isRecord(m['additional_kwargs']) ? (m['additional_kwargs'] as Rec) : undefined;
  const raw = kw?.['tool_calls'];
  const parsed = m['tool_calls'];
  const out: Record<string, unknown> = { ...m };
  const role = nonEmpty(m['role']) ?? LANGCHAIN_ROLES[String(m['type'])];
  if (role !== undefined) out['role'] = role;
  if (Array.isArray(raw) && raw.length > 0) out['tool_calls'] = raw;
  else if (Array.isArray(parsed)) {
    // A call whose arguments were not JSON is moved to `invalid_tool_calls` with the raw string: the InvalidJson one.
    const invalid = Array.isArray(m['invalid_tool_calls']) ? (m['invalid_tool_calls'] as unknown[]) : [];
    out['tool_calls'] = [...parsed, ...invalid].map((tc) =>
      isRecord(tc) && tc['function'] === undefined && tc['arguments'] === undefined
        ? { id: tc['id'], function: { name: tc['name'], arguments: tc['args'] } }
        : tc,
    );
  }
  if (kw && isRecord(kw['function_call']) && out['function_call'] === undefined)
    out['function_call'] = kw['function_call'];
  if (role === 'tool' && out['tool_call_id'] === undefined && m['tool_call_id'] !== undefined)
    out['tool_call_id'] = m['tool_call_id'];
  return out;
}

/** A list of message-like items: messages, Responses API items, Anthropic blocks, LangChain messages. */
function messagesOf(list: readonly unknown[]): Msg[] {
  // A bare list of Anthropic content blocks (no role anywhere) is one assistant message.
  if (
    list.length > 0 &&
    list.every((x) => isRecord(x) && x['role'] === undefined && (x['type'] === 'text' || x['type'] === 'tool_use'))
  ) {
    return readMessages([{ role: 'assistant', content: list }]);
  }
  const items = list.map((x) =>
    isRecord(x) &&
    (x['additional_kwargs'] !== undefined || (x['role'] === undefined && LANGCHAIN_ROLES[String(x['type'])]))
      ? fromLangChain(x)
      : x,
  );
  return readMessages(items);
}

/**
 * The messages in a generation's input or output, whatever wraps them: also used for the raw
 * provider payloads other dialects carry (MLflow span inputs/outputs, OpenInference `output.value`).
 */
export function messagesIn(v: unknown): Msg[] {
  if (typeof v === 'string') return [{ role: 'user', texts: [v], calls: [], results: [] }];
  if (Array.isArray(v)) return messagesOf(v);
  if (!isRecord(v)) return [];
  // OpenAI chat request {messages, tools}; Responses API request {input, tools} / response {output}.
  for (const key of ['messages', 'input', 'output'] as const) {
    const inner = v[key];
    if (Array.isArray(inner)) return messagesOf(inner);
    if (key === 'input' && typeof inner === 'string') return messagesIn(inner);
  }
  // LangChain generations {generations:[[{message}]]}: the first candidate.
  const gens = v['generations'];
  if (Array.isArray(gens)) {
    const first = Array.isArray(gens[0]) ? gens[0][0] : gens[0];
    if (isRecord(first) && isRecord(first['message'])) return messagesOf([first['message']]);
  }
  if (v['choices'] !== undefined) return readMessages(v);
  return messagesOf([v]);
}

/**
 * Langfuse's Python LangChain callback appends each offered tool to the generation's input as a
 * message `{role: "tool", content: {type: "function", function: {name, description, parameters}}}`.
 */
function definitionMessages(list: readonly unknown[]): unknown[] {
  const defs: unknown[] = [];
  for (const m of list) {
    if (!isRecord(m) || m['role'] !== 'tool') continue;
    const c = m['content'];
    if (!isRecord(c)) continue;
    if (isRecord(c['function']) || (typeof c['name'] === 'string' && c['parameters'] !== undefined)) defs.push(c);
  }
  return defs;
}

/**
 * Tools offered in the request: `input.tools` in any definition shape (OpenAI, flat/Responses,
 * Anthropic), else definitions carried as messages.
 */
export function offeredIn(input: unknown): SpanFacts['offered'] {
  const messages = isRecord(input) ? input['messages'] : undefined;
  const list = Array.isArray(input) ? input : Array.isArray(messages) ? (messages as unknown[]) : undefined;
  if (!isRecord(input)) return list === undefined ? undefined : nonEmptyDefs(definitionMessages(list));
  const tools =
    input['tools'] ?? (isRecord(input['invocation_params']) ? (input['invocation_params'] as Rec)['tools'] : undefined);
  if (tools !== undefined) return parseToolDefs(value(tools));
  return list === undefined ? undefined : nonEmptyDefs(definitionMessages(list));
}

function nonEmptyDefs(defs: unknown[]): SpanFacts['offered'] {
  return defs.length === 0 ? undefined : parseToolDefs(defs);
}

function tokens(o: LangfuseObservation, f: SpanFacts): void {
  const d = o.usageDetails ?? undefined;
  const inTok = d?.['input'] ?? d?.['prompt_tokens'] ?? d?.['input_tokens'] ?? o.usage?.input ?? undefined;
  const outTok = d?.['output'] ?? d?.['completion_tokens'] ?? d?.['output_tokens'] ?? o.usage?.output ?? undefined;
  if (typeof inTok === 'number' && Number.isFinite(inTok)) f.inputTokens = inTok;
  if (typeof outTok === 'number' && Number.isFinite(outTok)) f.outputTokens = outTok;
}

const ARG_KEYS = ['arguments', 'args', 'input', 'tool_input'] as const;

function callIdIn(v: unknown): string | undefined {
  if (!isRecord(v)) return undefined;
  for (const k of CALL_ID_KEYS) {
    const id = nonEmpty(v[k]);
    if (id !== undefined) return id;
  }
  return undefined;
}

/**
 * A TOOL observation. The call id is looked up in metadata, then in the input; when the input is an
 * envelope carrying the id, the arguments are its `arguments`/`args`/`input` member.
 */
function toolExecution(
  o: LangfuseObservation,
  metadata: unknown,
  input: unknown,
  output: unknown,
  durationMs: number,
): ToolExecution {
  const idInInput = callIdIn(input);
  const callId = callIdIn(metadata) ?? idInInput;
  // Parsed: v2 sends the input JSON-encoded, so a string argument arrives double-encoded.
  let args: unknown = input;
  if (idInInput !== undefined && isRecord(input)) {
    const key = ARG_KEYS.find((k) => input[k] !== undefined);
    args = key === undefined ? undefined : input[key];
  }
  const r = resultText(output);
  // level ERROR + statusMessage is all Langfuse keeps of a failure: the message (else the output) may say how.
  const failed = o.level === 'ERROR';
  const status = failed ? (textStatus(o.statusMessage ?? undefined) ?? textStatus(r) ?? 'error') : 'ok';
  const e: ToolExecution = { name: o.name ?? '', args: toToolArgs(args), status, durationMs };
  if (callId !== undefined) e.callId = callId;
  if (failed) e.errorType = o.statusMessage || 'error';
  if (r !== undefined) e.result = r;
  return e;
}

/**
 * One observation → facts; undefined for types that carry nothing about models or tools
 * (SPAN, EVENT, …). Never throws: hostile input yields bare facts.
 */
/**
 * A generation linked to a managed prompt is versioned by it ("support-agent@7": a new version
 * there is a prompt change, whatever the rendered text); otherwise by its request's system message.
 */
function linkedPrompt(o: LangfuseObservation): string | undefined {
  const name = nonEmpty(o.promptName);
  if (name === undefined || typeof o.promptVersion !== 'number') return undefined;
  return `${name}@${o.promptVersion}`;
}

export function observationToFacts(o: LangfuseObservation, opts: LangfuseNormalizeOptions): SpanFacts | undefined {
  const type = String(o.type ?? '').toUpperCase();
  const role: SpanFacts['role'] | undefined =
    type === 'GENERATION'
      ? 'model'
      : type === 'TOOL'
        ? 'tool'
        : type === 'AGENT' || type === 'CHAIN'
          ? 'agent'
          : undefined;
  if (role === undefined || typeof o.id !== 'string' || o.id === '') return undefined;
  const start = timeMs(o.startTime);
  const end = timeMs(o.endTime) || start;
  const f: SpanFacts = {
    dialect: DIALECT,
    // An observation without a trace is its own trace, so its calls still have a stable key.
    traceId: nonEmpty(o.traceId) ?? o.id,
    spanId: o.id,
    parentSpanId: o.parentObservationId ?? '',
    service: serviceOf(o.metadata, opts.service),
    startTimeMs: start,
    endTimeMs: end,
    role,
    proposals: [],
    replays: [],
  };
  try {
    const input = value(o.input);
    const output = value(o.output);
    if (role === 'tool') {
      f.execution = toolExecution(o, value(o.metadata), input, output, Math.max(0, end - start));
      return f;
    }
    const model = o.providedModelName || o.model;
    if (model) f.model = model;
    if (o.level === 'ERROR') f.error = o.statusMessage || 'error';
    const inMsgs = messagesIn(input);
    const outMsgs = messagesIn(output);
    if (role === 'model') {
      tokens(o, f);
      const offered = offeredIn(input);
      if (offered !== undefined) f.offered = offered;
      const prompt = linkedPrompt(o) ?? requestPromptVersion(input);
      if (prompt !== undefined) f.promptVersion = prompt;
      f.proposals = proposalsOf(outMsgs);
      f.replays = replaysOf(inMsgs);
    }
    const user = firstUserText(inMsgs);
    if (user !== undefined) f.userMessage = user;
    const text = assistantText(outMsgs);
    if (text !== undefined) f.outputText = text;
  } catch {
    // A shape we failed to read must not take the page down: the observation's identity stays.
    f.proposals = [];
    f.replays = [];
  }
  return f;
}
