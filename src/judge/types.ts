/** The judge's vocabulary: a stored trajectory, a verdict, a human label. Plain data only. */
import type { OutcomeName, ToolDef } from '../model.js';

export interface StepCall {
  callId?: string;
  name: string;
  /** Raw arguments as the model wrote them (absent when not captured). */
  arguments?: string;
  /** The structural outcome toolwatch gave the call, when it was counted in the same batch. */
  outcome?: OutcomeName;
  /** Why `arguments` is absent although the call had some: they could not be redacted (not stored). */
  argumentsOmitted?: string;
}

/**
 * Arrival order (ingest time × 1000 + a counter): breaks ties between spans that started in the
 * same millisecond, which SDKs that stamp starts in whole ms produce all the time. Exporters send
 * spans as they end, so arrival follows the agent's own order.
 */
interface Ordered {
  seq?: number;
  /** Fields left out because they could not be redacted (store.redact_arguments fails closed), and why. */
  omitted?: string;
}

/** A model request/response. */
export interface ModelStep extends Ordered {
  kind: 'model';
  spanId: string;
  startMs: number;
  endMs: number;
  model?: string;
  userMessage?: string;
  outputText?: string;
  error?: string;
  inputTokens?: number;
  outputTokens?: number;
  offered?: ToolDef[];
  calls: StepCall[];
}

/** A tool execution. */
export interface ToolStep extends Ordered {
  kind: 'tool';
  spanId: string;
  startMs: number;
  endMs: number;
  name: string;
  callId?: string;
  arguments?: string;
  status: 'ok' | 'error';
  errorType?: string;
  result?: string;
  outcome?: OutcomeName;
}

export type Step = ModelStep | ToolStep;

export type TrajectoryStatus = 'open' | 'pending' | 'judged' | 'error';

/** One sampled trace, assembled from its stored steps. */
export interface Trajectory {
  traceId: string;
  service: string;
  /** The agent's model (first model step that names one). */
  model: string;
  /** The user's task: the first user message. */
  task?: string;
  /** The last assistant text. */
  finalAnswer?: string;
  /** Tools offered, by name (first definition seen wins). */
  tools: ToolDef[];
  steps: Step[];
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  startedMs: number;
  hasFailure: boolean;
  status: TrajectoryStatus;
  /** Inclusion probability, set when the trajectory completed (null while open). */
  probability: number | null;
  attempts: number;
  lastError?: string;
}

/** What the judge answers (and what a human label holds). */
export interface VerdictFields {
  reached_goal: boolean;
  unnecessary_calls: number;
  dangerous_calls: number;
}

export interface Verdict extends VerdictFields {
  reasoning: string;
}

export interface Label extends VerdictFields {
  trace_id: string;
  labeler?: string;
  note?: string;
}

/** A recorded verdict (or a judge error) with everything needed to weight and audit it. */
export interface VerdictRecord {
  traceId: string;
  runId: number;
  timeMs: number;
  service: string;
  model: string;
  status: 'ok' | 'error';
  verdict?: Verdict;
  error?: string;
  promptVersion: string;
  judgeModel: string;
  probability: number;
  weight: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  /** The judged agent's model tokens over the trajectory (null: not reported by its spans). */
  agentTokens?: number | null;
  /** The judged agent's tool calls over the trajectory. */
  agentToolCalls?: number;
}

export interface RunRecord {
  id: number;
  startedMs: number;
  finishedMs: number | null;
  status: string;
  judged: number;
  errors: number;
  leftPending: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  stopReason: string | null;
  promptVersion: string;
  judgeModel: string;
}
