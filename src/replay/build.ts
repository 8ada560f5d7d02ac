/**
 * Stored production data → draft eval cases in the suite's canonical case format (README, "The
 * canonical case"): the user's message and the conversation before the answer in question, the tools
 * offered in that request, what the model did as `observed`, `expected: null` and `review: true` for
 * a person to fill, and the trace id. Pure; redaction and ids come after (export.ts).
 *
 * Three shapes, by what the store kept:
 * - a failing answer inside a stored trajectory: the conversation up to that model request (earlier
 *   calls with their tool results) and the answer's calls;
 * - a whole stored trajectory (a trace picked for its feedback or verdict): the user's message and
 *   every call the agent made, in order, with its final answer;
 * - a failure record alone (no trajectory kept): the user's message and tools of that request, as
 *   kept with the record, and only the failing calls of that answer (the others were not stored).
 */
import { definitionVersion } from '../tools/definition-hash.js';
import { FAILURE_OUTCOMES, type OutcomeName, type ToolDef } from '../model.js';
import type { ModelStep, StepCall, Trajectory } from '../judge/types.js';
import type { StoredFailure } from '../store/store.js';
import type { FailureContext } from './context.js';
import { isoTime } from '../util/iso-time.js';

export type ChatMessage =
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ObservedCall {
  name: string;
  /** As the model wrote them (absent when not captured). */
  arguments?: string;
  outcome?: OutcomeName;
  /** Validation errors or the JSON error, as the checker reported them. */
  errors?: string[];
}

export interface Observed {
  calls: ObservedCall[];
  /** The answer's text (for a whole trajectory: the agent's final answer). */
  text?: string;
}

export interface TraceFacts {
  service: string;
  model?: string;
  timeMs: number;
  feedback?: { value: number; comments: string[]; sources: string[] };
  verdict?: { reached_goal: boolean; unnecessary_calls: number; dangerous_calls: number; reasoning?: string };
}

/** A case before redaction and its content id. */
export interface Draft {
  messages: ChatMessage[];
  tools?: { type: 'function'; name: string; description?: string; parameters?: unknown }[];
  observed: Observed;
  traceId: string;
  tags: string[];
  metadata: {
    origin: 'trajectory_step' | 'trajectory' | 'failure_record';
    service: string;
    model?: string;
    /** null for a stored time no date can show (a row no writer of ours made). */
    time: string | null;
    /** Set when the case holds less than the model saw (see notes). */
    partial?: boolean;
    notes?: string[];
    /**
     * Per tool offered, the definition version it was offered in (src/tools/definition-hash.ts, as
     * GET /api/tools/:service/:tool lists them), so a golden set can be rerun against the old and the
     * new definition. Absent for a tool whose schema was too large to keep.
     */
    definition_versions?: Record<string, string>;
    feedback?: TraceFacts['feedback'];
    verdict?: TraceFacts['verdict'];
  };
}

/** `redaction_failed`: the user's message was not stored, because store.redact_arguments could not redact it. */
export type Skip = { traceId: string; reason: 'no_user_message' | 'redaction_failed' | 'nothing_stored' };

const NO_RESULT = '[toolwatch: no tool result was recorded for this call]';
const OMITTED = new Set(['note', 'x-toolwatch-omitted']);

/** A schema the store replaced by a note (too large to keep) is left out rather than passed off as a schema. */
function exportTools(defs: readonly ToolDef[] | undefined, notes: string[]): Draft['tools'] {
  if (!defs?.length) return undefined;
  return defs.map((t) => {
    const out: NonNullable<Draft['tools']>[number] = { type: 'function', name: t.name };
    if (t.description) out.description = t.description;
    const p = t.parameters;
    const marker =
      p && typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 1 && OMITTED.has(Object.keys(p)[0]!);
    if (marker) notes.push(`the schema of ${t.name} was too large to keep; add it before running`);
    else if (p !== undefined) out.parameters = p;
    return out;
  });
}

/** The definition version of each tool kept whole (a schema replaced by a note has none). */
function versionsOf(defs: readonly ToolDef[] | undefined): { definition_versions?: Record<string, string> } {
  if (!defs?.length) return {};
  const out: Record<string, string> = {};
  for (const t of defs) {
    const p = t.parameters;
    const omitted =
      p && typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 1 && OMITTED.has(Object.keys(p)[0]!);
    if (!omitted && !Object.hasOwn(out, t.name)) out[t.name] = definitionVersion(t);
  }
  return Object.keys(out).length > 0 ? { definition_versions: out } : {};
}

function errorsOf(f: StoredFailure | undefined): string[] | undefined {
  if (!f) return undefined;
  if (f.errors.length) return f.errors.slice(0, 10).map((e) => `${e.instancePath || '/'} ${e.message}`);
  return f.message ? [f.message] : undefined;
}

function tagsFor(outcomes: Iterable<OutcomeName | undefined>, facts: TraceFacts): string[] {
  const tags = new Set<string>(['production']);
  for (const o of outcomes) if (o && FAILURE_OUTCOMES.includes(o)) tags.add(o);
  if (facts.feedback && facts.feedback.value < 0) tags.add('negative-feedback');
  if (facts.verdict && !facts.verdict.reached_goal) tags.add('goal-missed');
  return [...tags];
}

function meta(
  origin: Draft['metadata']['origin'],
  facts: TraceFacts,
  notes: string[],
  partial = false,
): Draft['metadata'] {
  return {
    origin,
    service: facts.service,
    ...(facts.model ? { model: facts.model } : {}),
    time: isoTime(facts.timeMs),
    ...(partial ? { partial } : {}),
    ...(notes.length ? { notes } : {}),
    ...(facts.feedback ? { feedback: facts.feedback } : {}),
    ...(facts.verdict ? { verdict: facts.verdict } : {}),
  };
}

/** The failure record of a step's call, by call id, else by name (and arguments). */
function recordOf(c: StepCall, spanId: string, failures: readonly StoredFailure[]): StoredFailure | undefined {
  const here = failures.filter((f) => f.spanId === spanId);
  return (
    here.find((f) => c.callId !== undefined && f.callId === c.callId) ??
    here.find((f) => f.name === c.name && f.arguments === c.arguments) ??
    here.find((f) => f.name === c.name)
  );
}

function observedCall(c: StepCall, spanId: string, failures: readonly StoredFailure[]): ObservedCall {
  const f = recordOf(c, spanId, failures);
  const outcome = c.outcome ?? f?.outcome;
  const errors = outcome && FAILURE_OUTCOMES.includes(outcome) ? errorsOf(f) : undefined;
  return {
    name: c.name,
    ...(c.arguments !== undefined ? { arguments: c.arguments } : {}),
    ...(outcome ? { outcome } : {}),
    ...(errors ? { errors } : {}),
  };
}

/**
 * The conversation before `upTo` (a model step): the user's message, then each earlier answer's
 * calls with the tool results the trace recorded (matched by call id, else by name in order). A
 * call without a recorded result is answered by a marked placeholder, since providers refuse a
 * history with an unanswered call.
 */
function history(t: Trajectory, upTo: number, notes: string[]): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: t.task ?? '' }];
  let open: { id: string; name: string }[] = [];
  let synthesized = 0;
  const close = () => {
    for (const o of open) messages.push({ role: 'tool', tool_call_id: o.id, content: NO_RESULT });
    synthesized += open.length;
    open = [];
  };
  t.steps.slice(0, upTo).forEach((s, i) => {
    if (s.kind === 'model') {
      close();
      if (s.calls.length === 0) {
        if (s.outputText) messages.push({ role: 'assistant', content: s.outputText });
        return;
      }
      const calls = s.calls.map((c, k) => ({
        id: c.callId ?? `call_${i + 1}_${k + 1}`,
        type: 'function' as const,
        function: { name: c.name, arguments: c.arguments ?? '{}' },
      }));
      messages.push({ role: 'assistant', content: s.outputText ?? null, tool_calls: calls });
      open = calls.map((c) => ({ id: c.id, name: c.function.name }));
      return;
    }
    const at = open.findIndex(
      (o) => (s.callId !== undefined && o.id === s.callId) || (s.callId === undefined && o.name === s.name),
    );
    const match = at >= 0 ? at : open.findIndex((o) => o.name === s.name);
    if (match < 0) return; // a tool run no earlier answer asked for (or a duplicate): not part of the chat
    const [o] = open.splice(match, 1);
    const content = s.result ?? (s.status === 'error' ? `error: ${s.errorType ?? 'the tool failed'}` : '');
    messages.push({ role: 'tool', tool_call_id: o!.id, content });
  });
  close();
  if (synthesized)
    notes.push(`${synthesized} earlier call(s) had no recorded tool result; their answers are placeholders`);
  return messages;
}

/** One case per failing answer of a stored trajectory (only answers with an outcome in `outcomes`). */
export function stepCases(
  t: Trajectory,
  failures: readonly StoredFailure[],
  outcomes: ReadonlySet<OutcomeName>,
  facts: TraceFacts,
): Draft[] | Skip {
  if (!t.task) return { traceId: t.traceId, reason: 'no_user_message' };
  const failingSpans = new Set(failures.filter((f) => outcomes.has(f.outcome)).map((f) => f.spanId));
  const out: Draft[] = [];
  t.steps.forEach((s, i) => {
    if (s.kind !== 'model' || s.calls.length === 0) return;
    const observed = s.calls.map((c) => observedCall(c, s.spanId, failures));
    if (!failingSpans.has(s.spanId) && !observed.some((c) => c.outcome && outcomes.has(c.outcome))) return;
    const notes: string[] = [];
    const messages = history(t, i, notes);
    const tools = exportTools(s.offered ?? t.tools, notes);
    out.push({
      messages,
      ...(tools ? { tools } : {}),
      observed: { calls: observed, ...(s.outputText ? { text: s.outputText } : {}) },
      traceId: t.traceId,
      tags: tagsFor(
        observed.map((c) => c.outcome),
        facts,
      ),
      metadata: {
        ...meta('trajectory_step', { ...facts, ...(s.model ? { model: s.model } : {}) }, notes),
        ...versionsOf(s.offered ?? t.tools),
      },
    });
  });
  return out;
}

/** The whole stored trajectory as one case: the user's message, and every call the agent made. */
export function trajectoryCase(t: Trajectory, failures: readonly StoredFailure[], facts: TraceFacts): Draft | Skip {
  if (!t.task) return { traceId: t.traceId, reason: 'no_user_message' };
  const notes: string[] = [];
  const calls = t.steps.flatMap((s) =>
    s.kind === 'model' ? (s as ModelStep).calls.map((c) => observedCall(c, s.spanId, failures)) : [],
  );
  const tools = exportTools(t.tools, notes);
  return {
    messages: [{ role: 'user', content: t.task }],
    ...(tools ? { tools } : {}),
    observed: { calls, ...(t.finalAnswer ? { text: t.finalAnswer } : {}) },
    traceId: t.traceId,
    tags: tagsFor(
      calls.map((c) => c.outcome),
      facts,
    ),
    metadata: {
      ...meta('trajectory', { ...facts, ...(t.model ? { model: t.model } : {}) }, notes),
      ...versionsOf(t.tools),
    },
  };
}

/** One case per answer (span) with failure records, from the records and their kept request context. */
export function failureCases(
  traceId: string,
  failures: readonly StoredFailure[],
  contexts: ReadonlyMap<string, FailureContext>,
  facts: TraceFacts,
): (Draft | Skip)[] {
  const bySpan = new Map<string, StoredFailure[]>();
  for (const f of failures) bySpan.set(f.spanId, [...(bySpan.get(f.spanId) ?? []), f]);
  return [...bySpan].map(([spanId, records]): Draft | Skip => {
    const ctx = contexts.get(`${traceId}\u0000${spanId}`);
    if (!ctx?.userMessage) return { traceId, reason: ctx?.userMessageOmitted ? 'redaction_failed' : 'no_user_message' };
    const notes = [
      'no trajectory of this trace was kept: the earlier conversation is missing ' +
        'and only the failing calls of this answer are shown',
    ];
    const tools = exportTools(ctx.tools, notes);
    const ordered = [...records].sort((a, b) => a.id - b.id);
    const calls = ordered.map((f): ObservedCall => {
      const errors = errorsOf(f);
      return {
        name: f.name,
        ...(f.arguments !== undefined ? { arguments: f.arguments } : {}),
        outcome: f.outcome,
        ...(errors ? { errors } : {}),
      };
    });
    return {
      messages: [{ role: 'user', content: ctx.userMessage }],
      ...(tools ? { tools } : {}),
      observed: { calls },
      traceId,
      tags: tagsFor(
        calls.map((c) => c.outcome),
        facts,
      ),
      metadata: {
        ...meta('failure_record', { ...facts, model: ordered[0]!.model || facts.model || '' }, notes, true),
        ...versionsOf(ctx.tools),
      },
    };
  });
}
