/**
 * One case × repeat against one model: the conversation loop. Single-turn cases make one request.
 * Multi-turn cases (canned tool results or an expected trajectory) answer every call and ask again,
 * until the model answers without calls or max_turns requests were made. The answer to a call:
 * - a call the production checker rejects, or one that names no tool, gets {ok:false, error:{code:
 *   INVALID_ARGUMENTS | UNKNOWN_TOOL, message, details}} — a fake tool that tells the model what was
 *   wrong, so it can repair its call (recoveryRate counts the repairs);
 * - otherwise the next canned entry for that tool ({result} or {error}; the last one repeats),
 *   or {ok:true, result:null} when the case gives none.
 * Nothing real is ever executed.
 */
import type { SchemaCache } from '../check/schema-cache.js';
import { isFailure, type ToolDef } from '../model.js';
import type { ModelAdapter } from './adapters/adapter.js';
import { checkCall } from './check.js';
import type { StatefulTools } from './stateful.js';
import type { ToolChoice } from './tool-choice.js';
import type { CanonicalCall, CanonicalOutcome, EvalCase, Message, ProviderErrorCode, Turn, Usage } from './types.js';

export interface ConversationInput {
  adapter: ModelAdapter;
  case: EvalCase;
  system: string;
  tools: readonly ToolDef[];
  temperature?: number;
  maxTokens?: number;
  /** The variant's forced choice: sent with the first request only (later turns auto). */
  toolChoice?: ToolChoice;
  schemas: SchemaCache;
  /** Redacts a raw request or response before it is recorded (fails closed: null on error). */
  redact: (v: unknown) => unknown;
  /** The suite's tools.mjs: answers the valid calls of a case with initial_state. */
  stateful?: StatefulTools;
}

export interface ConversationResult {
  status: 'ok' | 'provider_error';
  error?: { code: ProviderErrorCode; message: string; status?: number };
  turns: Turn[];
  latencyMs: number;
  usage: Usage;
  attempts: number;
  /** The stateful tools' state when the conversation ended (cases with initial_state). */
  endState?: unknown;
}

function answerCall(
  call: CanonicalCall,
  input: ConversationInput,
  counters: Map<string, number>,
  state?: { value: unknown },
): { content: string; isError: boolean } {
  const checked = checkCall(call, input.tools, input.schemas);
  // A call that names no tool is unvalidated (no_name) for the checker, but no tool can answer it.
  const nameless = checked.outcome === 'unvalidated' && checked.detail === 'no_name';
  if (isFailure(checked.outcome) || nameless) {
    const code = checked.outcome === 'UnknownName' || nameless ? 'UNKNOWN_TOOL' : 'INVALID_ARGUMENTS';
    const message = nameless
      ? 'The tool call names no tool.'
      : checked.outcome === 'UnknownName'
        ? `There is no tool named ${call.name}.`
        : checked.outcome === 'InvalidJson'
          ? 'The tool arguments are not a JSON object.'
          : 'The tool arguments did not match the schema.';
    const details = nameless ? input.tools.map((t) => t.name) : (checked.detail ?? null);
    return { content: JSON.stringify({ ok: false, error: { code, message, details } }), isError: true };
  }
  if (state && input.stateful?.names.includes(call.name)) {
    try {
      const r = input.stateful.call(call.name, checked.parsed ?? {}, state.value);
      state.value = r.state;
      return 'error' in r
        ? { content: JSON.stringify({ ok: false, error: r.error }), isError: true }
        : { content: JSON.stringify({ ok: true, result: r.result }), isError: false };
    } catch (err) {
      // The fake tool failed (threw, timed out): the model is told, the state stays as it was.
      const message = (err as Error).message;
      return { content: JSON.stringify({ ok: false, error: { code: 'TOOL_ERROR', message } }), isError: true };
    }
  }
  // Own keys only: a tool named `constructor` has no canned result unless the case gives it one.
  const canned = Object.hasOwn(input.case.toolResults, call.name) ? input.case.toolResults[call.name] : undefined;
  if (!canned) return { content: JSON.stringify({ ok: true, result: null }), isError: false };
  const n = counters.get(call.name) ?? 0;
  counters.set(call.name, n + 1);
  const entry = canned[Math.min(n, canned.length - 1)]!;
  return 'error' in entry
    ? { content: JSON.stringify({ ok: false, error: entry.error }), isError: true }
    : { content: JSON.stringify({ ok: true, result: entry.result }), isError: false };
}

export async function converse(input: ConversationInput): Promise<ConversationResult> {
  const c = input.case;
  const messages: Message[] = [
    ...(input.system ? [{ role: 'system' as const, content: input.system }] : []),
    ...c.messages,
  ];
  const turns: Turn[] = [];
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  const counters = new Map<string, number>();
  // JSON in, JSON out: the case's initial_state is never mutated.
  const state =
    c.initialState !== undefined ? { value: JSON.parse(JSON.stringify(c.initialState)) as unknown } : undefined;
  let latencyMs = 0;
  let attempts = 0;
  for (let t = 0; t < c.maxTurns; t++) {
    const res = await input.adapter.complete({
      messages,
      tools: input.tools,
      ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
      ...(input.maxTokens !== undefined ? { maxTokens: input.maxTokens } : {}),
      ...(t === 0 && input.toolChoice && input.toolChoice !== 'auto' ? { toolChoice: input.toolChoice } : {}),
    });
    latencyMs += res.latencyMs;
    attempts += res.attempts;
    if (res.usage) {
      usage.inputTokens += res.usage.inputTokens;
      usage.outputTokens += res.usage.outputTokens;
    }
    // An error message is the provider's text (it may quote a key): redacted like the raw bodies.
    const outcome: CanonicalOutcome =
      res.outcome.kind === 'provider_error'
        ? { ...res.outcome, message: String(input.redact(res.outcome.message) ?? '[redacted]') }
        : res.outcome;
    const turn: Turn = {
      request: input.redact(res.request),
      response: input.redact(res.response),
      outcome,
      latencyMs: res.latencyMs,
      ...(res.usage ? { usage: res.usage } : {}),
      ...(res.transform ? { transform: res.transform } : {}),
    };
    turns.push(turn);
    const o = outcome;
    if (o.kind === 'provider_error') {
      return {
        status: 'provider_error',
        error: { code: o.code, message: o.message, ...(o.status ? { status: o.status } : {}) },
        turns,
        latencyMs,
        usage,
        attempts,
      };
    }
    if (o.kind !== 'tool_calls' || t === c.maxTurns - 1) break;
    // Providers that send no call id still need one to pair results; the recorded outcome keeps null.
    const calls = o.calls.map((call, i) => ({ ...call, id: call.id ?? `call_${t + 1}_${i + 1}` }));
    const answers = calls.map((call) => ({ call, ...answerCall(call, input, counters, state) }));
    turn.toolResults = answers.map((a) => ({
      callId: a.call.id,
      name: a.call.name,
      content: a.content,
      isError: a.isError,
    }));
    messages.push({ role: 'assistant', content: o.text ?? null, toolCalls: calls });
    for (const a of answers)
      messages.push({ role: 'tool', toolCallId: a.call.id, name: a.call.name, content: a.content, isError: a.isError });
  }
  return { status: 'ok', turns, latencyMs, usage, attempts, ...(state ? { endState: state.value } : {}) };
}
