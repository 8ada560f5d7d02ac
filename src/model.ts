/**
 * The shared vocabulary of toolwatch. Every stage speaks these types; none of them knows
 * about HTTP, protobuf, a database or a clock.
 */

/**
 * An OTLP AnyValue after decoding. Attribute maps and kvlists become objects made by newAttrObject():
 * no Object.prototype on their prototype chain, so a `__proto__` or `toString` key is plain data.
 */
export type AttrValue = string | number | boolean | null | Uint8Array | AttrValue[] | AttrObject;
export interface AttrObject {
  [key: string]: AttrValue;
}

/**
 * The prototype of every attribute object: empty, frozen, itself without a prototype. Not
 * Object.create(null) for the objects themselves: V8 keeps a null-prototype object in dictionary
 * mode (a hash table per span, ≈ 4× the bytes of a fast object with the same keys, and most of what
 * a batch's decode allocated); an object whose prototype is this one stays a fast object, and with
 * nothing on its chain it still inherits no key.
 */
const ATTR_PROTO: object = Object.freeze(Object.create(null));

/** A fresh attribute object (see ATTR_PROTO): decoders and readers that build span attributes use it. */
export function newAttrObject(): AttrObject {
  return Object.create(ATTR_PROTO) as AttrObject;
}

/** A span event (deprecated GenAI forms put whole messages in events). */
export interface SpanEvent {
  name: string;
  timeMs: number;
  attributes: AttrObject;
}

/** OTLP SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
export type SpanKind = 0 | 1 | 2 | 3 | 4 | 5;
/** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
export type StatusCode = 0 | 1 | 2;

/** One decoded span, whatever wire format it came in. Ids are lower-case hex. */
export interface Span {
  traceId: string;
  spanId: string;
  /** '' when the span is a root. */
  parentSpanId: string;
  name: string;
  kind: SpanKind;
  startTimeMs: number;
  endTimeMs: number;
  statusCode: StatusCode;
  statusMessage: string;
  /** Null-prototype object. */
  attributes: AttrObject;
  events: SpanEvent[];
  /** Resource `service.name`, or 'unknown_service'. */
  service: string;
  /** Instrumentation scope name ('' when absent). */
  scope: string;
  /** Instrumentation scope version ('' when absent). */
  scopeVersion: string;
}

/**
 * A GenAI event that arrived as an OTLP log record (`gen_ai.choice`, `gen_ai.*.message`,
 * `gen_ai.client.inference.operation.details` …): what a span event of the same name would carry,
 * with the record's trace and span ids (lower-case hex) naming the span it belongs to.
 */
export interface LogEvent {
  traceId: string;
  spanId: string;
  name: string;
  timeMs: number;
  /** Null-prototype object. */
  attributes: AttrObject;
  /** The record's body (an event's payload in the older conventions); null when absent. */
  body: AttrValue;
  service: string;
  scope: string;
  scopeVersion: string;
}

/** A tool definition as offered to the model or loaded from the registry. */
export interface ToolDef {
  name: string;
  description?: string;
  /** The JSON Schema of the arguments; undefined when the definition carried none. */
  parameters?: unknown;
}

/**
 * Arguments as the emitter sent them. `raw` is what we store and show: the original string, or for
 * a structured (kvlist) value its JSON serialisation.
 */
export type ToolArgs =
  | { kind: 'none' }
  | { kind: 'string'; raw: string }
  | { kind: 'structured'; value: unknown; raw: string };

/** A call the model proposed in its output, or replayed in its input history. */
export interface CallSighting {
  /** Provider call id (`call_…`, `toolu_…`); undefined when the emitter recorded none. */
  callId?: string;
  name: string;
  args: ToolArgs;
  /** Position of this call among the span's calls of the same kind (output or input). */
  index: number;
  /** For replays: the tool's result when the history carries it. */
  result?: string;
}

/**
 * How a tool's execution ended (src/normalize/exec-status.ts): `client_error` — the downstream refused
 * the call as wrong (4xx); `server_error` — the tool was down or slow (5xx, timeouts); `error` — it
 * failed, nobody said how; `tool_error` — the span says it succeeded but the tool's result reports a
 * failure (MCP `isError: true`, `{"ok": false}` envelopes: src/normalize/tool-error.ts).
 */
export type ExecutionStatus = 'ok' | 'client_error' | 'server_error' | 'error' | 'tool_error';
export const EXECUTION_STATUSES: readonly ExecutionStatus[] = [
  'ok',
  'client_error',
  'server_error',
  'error',
  'tool_error',
];
export const FAILED_EXECUTION_STATUSES: readonly ExecutionStatus[] = [
  'client_error',
  'server_error',
  'error',
  'tool_error',
];

/** A tool span: the execution of a call. */
export interface ToolExecution {
  callId?: string;
  name: string;
  args: ToolArgs;
  status: ExecutionStatus;
  errorType?: string;
  /** The failing HTTP status code on the tool span itself (a problem's signature names it). */
  httpStatus?: number;
  result?: string;
  durationMs: number;
}

/** What one span says about tool use, in dialect-independent form. */
export interface SpanFacts {
  /** Registry name of the reader that understood the span, e.g. 'genai', 'openinference'. */
  dialect: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  service: string;
  /**
   * The span's instrumentation scope name and version (set by the dialect registry for every span
   * it reads); undefined for facts not read from a span (Langfuse API observations).
   */
  scope?: string;
  scopeVersion?: string;
  startTimeMs: number;
  endTimeMs: number;
  /** 'model' = a model request/response; 'tool' = a tool execution; 'agent' = an agent/workflow. */
  role: 'model' | 'tool' | 'agent' | 'other';
  model?: string;
  provider?: string;
  /**
   * Tools offered in this request. undefined = the request carried no definitions (fall back to the
   * registry); [] = it explicitly offered none.
   */
  offered?: readonly ToolDef[];
  /** The version (hash) of the request's system instructions (src/tools/definition-hash.ts); never the text. */
  promptVersion?: string;
  /** Calls the model proposed in this span's output. */
  proposals: CallSighting[];
  /** Calls replayed from history in this span's input (never counted on their own). */
  replays: CallSighting[];
  /** Set on tool spans. */
  execution?: ToolExecution;
  inputTokens?: number;
  outputTokens?: number;
  /** First user message of the request, when captured (for trajectories). */
  userMessage?: string;
  /** Assistant text of the response, when captured (for trajectories). */
  outputText?: string;
  /**
   * Calls this span reports as a summary of work done under it (Pydantic AI's agent-run span), not
   * as its own model output. Counted only when no proposal or execution of the same call shows up
   * within the grace period, so they never add a count and never take one from a richer sighting.
   */
  summaryCalls?: CallSighting[];
  /** Span status error, for model spans. */
  error?: string;
  /**
   * The instrumentation exports a tool's schema on its tool span, not with the request (OpenInference
   * TOOL spans' `tool.parameters`, Strands' `gen_ai.tool.json_schema`): a proposal this span has no
   * definition for waits, like a tool-span-only call, for its tool span's schema.
   */
  schemasOnToolSpans?: true;
  /**
   * Read from GenAI log records, not from a span (pipeline/log-join.ts): the id the batch claims them
   * under (a resent log batch is a duplicate; the span itself and later records of it are not).
   */
  claimId?: string;
  /** Read from log records whose span has not arrived: its calls wait for the span's model (log-join.ts). */
  awaitsSpan?: true;
  /** The model response's finish reasons as the span reports them (normalize/finish-reasons.ts), e.g. `length`. */
  finishReasons?: string[];
}

/** One Ajv error, kept with each SchemaMismatch failure. */
export interface ValidationError {
  instancePath: string;
  keyword: string;
  message: string;
  params: Record<string, unknown>;
}

export type OutcomeName = 'valid' | 'InvalidJson' | 'UnknownName' | 'SchemaMismatch' | 'unvalidated';
/** Why a call could not be checked: the `reason` label of toolwatch_unvalidated_calls_total. */
export const UNVALIDATED_REASONS = [
  'no_arguments',
  'no_schema',
  'bad_schema',
  'no_name',
  'too_large',
  'too_deep',
  'budget',
  'check_error',
] as const;
export type UnvalidatedReason = (typeof UNVALIDATED_REASONS)[number];

/**
 * Why arguments were not a JSON object (src/check/invalid-json-cause.ts): the `reason` of an
 * InvalidJson call's aggregate and failure record, and of toolwatch_invalid_json_total.
 */
export const INVALID_JSON_CAUSES = [
  'truncated',
  'concatenated',
  'python_literal',
  'trailing_text',
  'not_object',
  'empty',
  'other',
] as const;
export type InvalidJsonCause = (typeof INVALID_JSON_CAUSES)[number];

/** The outcome contract (the README's outcome table), as a discriminated union. */
export type Outcome =
  | { outcome: 'valid' }
  | { outcome: 'InvalidJson'; message: string; cause: InvalidJsonCause }
  | { outcome: 'UnknownName'; known: string[] }
  | { outcome: 'SchemaMismatch'; errors: ValidationError[] }
  | { outcome: 'unvalidated'; reason: UnvalidatedReason; message?: string };

export const OUTCOMES: readonly OutcomeName[] = [
  'valid',
  'InvalidJson',
  'UnknownName',
  'SchemaMismatch',
  'unvalidated',
];
export const FAILURE_OUTCOMES: readonly OutcomeName[] = ['InvalidJson', 'UnknownName', 'SchemaMismatch'];

export function isFailure(o: OutcomeName): boolean {
  return o === 'InvalidJson' || o === 'UnknownName' || o === 'SchemaMismatch';
}

/** The tool label of an UnknownName call: a name the model invented is never a label value. */
export const UNKNOWN_TOOL = '_unknown';
/** The tool label of a call or execution no span named (never the empty string). */
export const UNNAMED_TOOL = '_unnamed';

/** The tool a call is counted under: an invented name is `_unknown`, a missing one `_unnamed`. */
export function countedTool(outcome: OutcomeName, name: string): string {
  return outcome === 'UnknownName' ? UNKNOWN_TOOL : name === '' ? UNNAMED_TOOL : name;
}

/** Where a batch came from: shows as the `source` label and column. */
export type SourceName = 'otlp' | 'langfuse';

/** The structural outcome of an executed call, as far as it was known when the execution was counted. */
export type CallOutcomeLabel = OutcomeName | 'unknown';

/** An execution counted now (the pipeline's execution hold releases it), with everything its rows and metrics need. */
export interface ReleasedExecution {
  source: SourceName;
  traceId: string;
  service: string;
  model: string;
  tool: string;
  status: ExecutionStatus;
  callOutcome: CallOutcomeLabel;
  durationMs: number;
  timeMs: number;
  /** When its status grace ended: the moment it counts as having arrived, for the trajectory's idle clock. */
  dueMs: number;
  /** The tool span, and what it said about a failure: its problem's signature and example (problems/). */
  spanId?: string;
  httpStatus?: number;
  errorType?: string;
  /** The arguments and result as the tool span had them (references, not copies). */
  args?: string;
  result?: string;
  /** Set by the problem recorder once filed: the signature's hash (the trajectory's repair turns read it). */
  problemId?: string;
}

/** A call counted once, with the outcome of its check. */
export interface CheckedCall {
  source: SourceName;
  traceId: string;
  /** The span the call was counted from (the proposing model span, else the tool span). */
  spanId: string;
  callId?: string;
  service: string;
  model: string;
  /** The name as the model wrote it (may be invented). */
  name: string;
  args: ToolArgs;
  timeMs: number;
  outcome: Outcome;
  /** Where the schema it was checked against came from, when not from its request or the registry. */
  schemaFrom?: 'tool_span';
  /** Counted from a tool span alone (no proposal was seen). */
  fromExecution: boolean;
  /** The instrumentation scope of the span it was counted from (absent when not read from a span). */
  scope?: string;
  scopeVersion?: string;
  /** Set by the problem recorder on a failed call once filed: the signature's hash (repair turns read it). */
  problemId?: string;
}
