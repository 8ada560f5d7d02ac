/**
 * The eval vocabulary: one canonical case (whatever format it was written in), the messages and
 * the canonical outcome every adapter maps its provider's answer to, and the argument and
 * trajectory expectations the scorer checks.
 */
import type { OutcomeName, ToolDef } from '../model.js';

/** A call as the model proposed it (or as history replays it). Arguments stay as received. */
export interface CanonicalCall {
  id: string | null;
  name: string;
  /** The provider's raw value: a JSON string (chat completions) or an object (Messages tool_use input). */
  arguments: unknown;
  /** Protocol data the call must carry back in the history (Gemini 3's `thoughtSignature`); never matched. */
  meta?: Record<string, unknown>;
}

/**
 * Why a request got no model answer — coverage loss, never a model decision. `harness`: toolwatch
 * itself could not build or send the request (e.g. history the protocol cannot carry).
 */
export type ProviderErrorCode =
  | 'auth'
  | 'rate_limited'
  | 'rejected'
  | 'server'
  | 'timeout'
  | 'connection'
  | 'bad_response'
  | 'harness';

export type CanonicalOutcome =
  | { kind: 'tool_calls'; calls: CanonicalCall[]; text?: string }
  | { kind: 'text'; text: string }
  | { kind: 'refusal'; text: string | null }
  | { kind: 'provider_error'; code: ProviderErrorCode; message: string; status?: number };

export type Message =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: CanonicalCall[] }
  | { role: 'tool'; toolCallId: string; name?: string; content: string; isError?: boolean };

/** How one argument value is compared: exact (deep equal, no coercion), soft (strings: case,
 * accents and spacing ignored), ignore (not compared), judge (the eval judge decides whether the
 * value means the same, with the user's request as context), similar (cosine similarity of the
 * two strings' embeddings ≥ a threshold). judge and similar ask only when soft equality fails. */
export type ValueMode = 'exact' | 'soft' | 'ignore' | 'judge' | 'similar';

export interface Constraint {
  integer?: boolean;
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
}

/** What the arguments of one expected call must satisfy. */
export interface ArgsSpec {
  /** Keys that must be present (unless their mode is ignore) and match. */
  checks: { key: string; mode: ValueMode; value: unknown; threshold?: number }[];
  /** Keys that may be present; checked against `constraints` when they are. */
  optional: string[];
  constraints: Record<string, Constraint>;
  /** A key the spec does not name: a failure ('fail') or allowed ('ignore'). */
  extra: 'fail' | 'ignore';
  /** The literal object an exact match must equal (exactMatchRate). */
  literal: Record<string, unknown>;
}

export interface ExpectedCall {
  name: string;
  /** undefined: any arguments (only the tool and structural validity are checked). */
  args?: ArgsSpec;
}

/** agentevals' trajectory match modes, compared on the sequence of calls. */
export type TrajectoryMode = 'strict' | 'unordered' | 'subset' | 'superset';
/** agentevals' tool argument modes; a list of keys compares only those keys (dot paths). */
export type ToolArgsMode = 'exact' | 'ignore' | 'subset' | 'superset' | string[];

export type Expectation =
  /** One or more calls in the model's (first) answer; several are matched in any order. */
  | { kind: 'tool'; calls: ExpectedCall[] }
  /** No tool call: text, refusal or a question all pass. */
  | { kind: 'text' }
  /** A question back to the user instead of a guessed value. */
  | { kind: 'clarification'; missing: string[] }
  /**
   * No reference answer: structural checks first (a call the production checker fails, a provider
   * error), then the judge (`EvalCase.judge`) decides; `scope` says which verdict it gives.
   */
  | { kind: 'judge'; scope: JudgeScope }
  /** The end state of the suite's stateful tools (tools.mjs) must equal this: any order of calls that reaches it passes. */
  | { kind: 'state'; expected: unknown; reference?: { name: string; arguments: Record<string, unknown> }[] }
  | {
      kind: 'trajectory';
      calls: { name: string; arguments: Record<string, unknown> }[];
      match: TrajectoryMode;
      argsMode: ToolArgsMode;
      argsOverrides: Record<string, ToolArgsMode>;
    };

/** decision: tool_selection_ok + arguments_ok of the first answer; trajectory: the production judge's verdict. */
export type JudgeScope = 'decision' | 'trajectory';

/** A judge question of a case: its rubric, and whether it replaces (`kind: judge`) or follows a deterministic check. */
export interface CaseJudge {
  rubric: string;
  scope: JudgeScope;
  /** A replayed production failure: without a judge configured, the production checker alone decides. */
  replay?: boolean;
}

/** What the runner answers when the model calls a tool (multi-turn cases). */
export type CannedResult = { result: unknown } | { error: unknown };

/**
 * How a case line was written: `call-list` (`expected: [{name, arguments}]`), `kind` (`prompt` with
 * `expected: {kind, …}`), `expected-tool` (`expected_tool`/`expected_args`/`match_mode`, or input in
 * `user_message`), `canonical` (anything else: `messages`, trajectories, exports).
 */
export type CaseFormat = 'call-list' | 'kind' | 'expected-tool' | 'canonical';

export interface EvalCase {
  id: string;
  file: string;
  line: number;
  format: CaseFormat;
  /** The conversation so far; the user's message is the last user turn. */
  messages: Message[];
  /** Tools offered for this case; undefined = the suite's tools. */
  tools?: ToolDef[];
  expected: Expectation;
  tags: string[];
  /** Canned results by tool name: the n-th valid call of a tool gets the n-th entry (the last repeats). */
  toolResults: Record<string, CannedResult[]>;
  /** Model requests allowed for this case (1 = single turn). */
  maxTurns: number;
  traceId?: string;
  observed?: unknown;
  /** Asked of the judge (suite.yaml `judge:`) when the deterministic checks cannot answer. */
  judge?: CaseJudge;
  /** The state the suite's stateful tools (tools.mjs) start from; set = the calls are answered by them. */
  initialState?: unknown;
}

/** A case the export left for a person to fill (`review: true`, no expectation): skipped and counted. */
export interface SkippedCase {
  id: string;
  file: string;
  line: number;
  reason: 'review';
  traceId?: string;
}

/** A call after the production checker looked at it. */
export interface CheckedCall extends CanonicalCall {
  outcome: OutcomeName;
  /** Ajv errors, the JSON error or the offered names, as the checker reported them. */
  detail?: unknown;
  /** The parsed arguments when they are a JSON object (for matching); undefined otherwise. */
  parsed?: Record<string, unknown>;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/** A protocol's rewrite of the suite's tool definitions: each change as `tool: path: what`. */
export interface AdapterTransform {
  name: string;
  changes: string[];
}

/** One model request of a conversation, as recorded. */
export interface Turn {
  request: unknown;
  response: unknown;
  outcome: CanonicalOutcome;
  latencyMs: number;
  usage?: Usage;
  /** How the adapter rewrote the tools for its protocol (Gemini's Schema subset), when it had to. */
  transform?: AdapterTransform;
  /** What the runner answered to each call of this turn (multi-turn cases). */
  toolResults?: { callId: string | null; name: string; content: string; isError: boolean }[];
}
