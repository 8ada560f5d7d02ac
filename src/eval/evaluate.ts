/**
 * One observation (a case × repeat for one model) against its expectation. Pure.
 *
 * - The decision is the first model answer: it drives selection, arguments, exact match and the
 *   confusion matrix (single-decision metrics; trajectory cases have none).
 * - Strict pass is judged on the final decision: the last answer that made calls (or, when none
 *   did, the last answer) — so a model that repairs a rejected call within max_turns passes.
 * - A provider error or a missing record is never a decision: every pass is false, nothing is
 *   counted as a correct non-call.
 */
import type { SchemaCache } from '../check/schema-cache.js';
import { isFailure, UNNAMED_TOOL, type ToolDef } from '../model.js';
import type { ArgAsk, ArgMatch } from './args.js';
import { deepEqual } from './args.js';
import { askFor, callsProblems } from './calls-match.js';
import { checkCall } from './check.js';
import {
  decided,
  type JudgeAsk,
  type JudgeLookupResult,
  judgeProblems,
  type JudgeSlot,
  judgeSlot,
} from './judge-slot.js';
import { matchTrajectory } from './trajectory.js';

export type { JudgeAsk, JudgeFields, JudgeLookupResult, JudgeSlot } from './judge-slot.js';
import type { CanonicalOutcome, CheckedCall, EvalCase, ProviderErrorCode, Turn } from './types.js';

export const NONE = '(none)';
export const MISSING = '(missing)';

export interface Observation {
  repeat: number;
  status: 'ok' | 'provider_error';
  error?: { code: ProviderErrorCode; message: string; status?: number };
  turns: Turn[];
  latencyMs: number;
  usage: { inputTokens: number; outputTokens: number };
  /** The fake tools' state at the end (stateful suites). */
  endState?: unknown;
}

export interface Evaluated {
  caseId: string;
  repeat: number;
  status: 'ok' | 'provider_error' | 'missing';
  errorCode?: ProviderErrorCode;
  expectedLabel: string;
  /** The first answer: a tool name, names joined with +, (none) or (missing). */
  decisionLabel: string;
  /** null on trajectory cases. */
  selectionPass: boolean | null;
  /** null when no argument check applies (selection failed, no call expected, or no arguments given). */
  argsPass: boolean | null;
  exactMatch: boolean | null;
  strictPass: boolean;
  /** The first answer is a question back to the user. */
  clarified: boolean;
  /** An error result (canned, or INVALID_ARGUMENTS for a broken call) went back to the model. */
  errorReturned: boolean;
  recovered: boolean;
  calls: CheckedCall[];
  /** Requests the provider answered / refused outright (400, 404, 413, 422). */
  answered: number;
  rejected: number;
  /** Normalized outcome, for stability across repeats; undefined unless ok. */
  key?: string;
  problems: string[];
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  /** The judge's part, on cases that have one (EvalCase.judge). */
  judge?: JudgeSlot;
  /** How each `judge` / `similar` argument of the first answer was settled. */
  argMatches?: (ArgMatch & { tool: string })[];
}

/** A `judge` or `similar` argument check handed to the lookup (arg-match-run.ts). */
export interface ArgMatchAsk {
  c: EvalCase;
  tool: string;
  key: string;
  mode: 'judge' | 'similar';
  expected: unknown;
  actual: unknown;
  threshold?: number;
  offered: readonly ToolDef[];
}

export interface EvalContext {
  offered: readonly ToolDef[];
  schemas: SchemaCache;
  clarification: RegExp;
  /** The judge's verdict for an observation the deterministic checks cannot decide; absent: none is configured. */
  judge?: (q: JudgeAsk) => JudgeLookupResult;
  /** Answers `judge` / `similar` argument checks; absent: they stay pending. */
  argMatch?: (q: ArgMatchAsk) => ReturnType<ArgAsk>;
}

/** Calls as a decision label; a call that names no tool shows as `_unnamed`, as on production's metrics. */
const labelOf = (names: string[]): string =>
  names.length
    ? names
        .map((n) => (n === '' ? UNNAMED_TOOL : n))
        .sort()
        .join('+')
    : NONE;

export function expectedLabel(c: EvalCase): string {
  return c.expected.kind === 'tool'
    ? labelOf(c.expected.calls.map((x) => x.name))
    : c.expected.kind === 'trajectory'
      ? 'trajectory'
      : c.expected.kind === 'judge'
        ? `judge (${c.expected.scope})`
        : c.expected.kind === 'state'
          ? 'end state'
          : NONE;
}

/** A case with no record at all: a failure, counted as coverage loss. */
export function missing(c: EvalCase, repeat: number): Evaluated {
  const single = c.expected.kind !== 'trajectory' && c.expected.kind !== 'judge' && c.expected.kind !== 'state';
  const s = c.judge?.scope;
  return {
    ...(s
      ? {
          judge: decided(
            s,
            false,
            s === 'decision' ? { tool_selection_ok: false, arguments_ok: false } : { reached_goal: false },
          ),
        }
      : {}),
    caseId: c.id,
    repeat,
    status: 'missing',
    expectedLabel: expectedLabel(c),
    decisionLabel: MISSING,
    selectionPass: single ? false : null,
    argsPass: null,
    exactMatch: single ? false : null,
    strictPass: false,
    clarified: false,
    errorReturned: false,
    recovered: false,
    calls: [],
    answered: 0,
    rejected: 0,
    problems: ['no prediction for this case and repeat'],
    latencyMs: 0,
    inputTokens: 0,
    outputTokens: 0,
  };
}

const REJECTED_STATUSES = new Set([400, 404, 413, 422]);

function outcomeKey(o: CanonicalOutcome, calls: CheckedCall[], clarification: RegExp): string {
  if (o.kind === 'tool_calls') {
    return JSON.stringify(
      calls.map((c) => [c.name, c.parsed ?? (typeof c.arguments === 'string' ? c.arguments : null)]),
      sortKeys,
    );
  }
  if (o.kind === 'text') return clarification.test(o.text) ? 'clarification' : 'text';
  return o.kind;
}

function sortKeys(_k: string, v: unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, (v as Record<string, unknown>)[k]]),
  );
}

interface Judged {
  pass: boolean;
  problems: string[];
}

function judgeDecision(
  c: EvalCase,
  o: CanonicalOutcome,
  calls: CheckedCall[],
  ctx: EvalContext,
  literal: boolean,
  matches?: (ArgMatch & { tool: string })[],
): Judged {
  const e = c.expected;
  if (e.kind === 'trajectory' || e.kind === 'judge' || e.kind === 'state') return { pass: false, problems: [] };
  if (o.kind === 'provider_error') return { pass: false, problems: [`provider error: ${o.code}`] };
  if (e.kind === 'text') {
    return calls.length === 0
      ? { pass: true, problems: [] }
      : { pass: false, problems: [`called ${labelOf(calls.map((x) => x.name))}; no call expected`] };
  }
  if (e.kind === 'clarification') {
    if (calls.length)
      return { pass: false, problems: [`called ${labelOf(calls.map((x) => x.name))} instead of asking`] };
    if (o.kind === 'text' && ctx.clarification.test(o.text)) return { pass: true, problems: [] };
    return {
      pass: false,
      problems: [`answered (${o.kind}) without asking for ${e.missing.join(', ') || 'the missing value'}`],
    };
  }
  const want = labelOf(e.calls.map((x) => x.name));
  const got = labelOf(calls.map((x) => x.name));
  if (want !== got)
    return {
      pass: false,
      problems: [calls.length ? `called ${got}, expected ${want}` : `no call (${o.kind}), expected ${want}`],
    };
  const problems = callsProblems(e.calls, calls, literal, askFor(c, ctx), matches);
  for (const m of calls) if (isFailure(m.outcome)) problems.push(`${m.name}: ${m.outcome}`);
  return { pass: problems.length === 0, problems };
}

export function evaluate(c: EvalCase, obs: Observation, ctx: EvalContext): Evaluated {
  const checkedTurns = obs.turns.map((t) =>
    t.outcome.kind === 'tool_calls' ? t.outcome.calls.map((x) => checkCall(x, ctx.offered, ctx.schemas)) : [],
  );
  const calls = checkedTurns.flat();
  const answered = obs.turns.filter((t) => t.outcome.kind !== 'provider_error').length;
  const rejected = obs.turns.filter(
    (t) => t.outcome.kind === 'provider_error' && REJECTED_STATUSES.has(t.outcome.status ?? 0),
  ).length;
  const errorTurns = obs.turns
    .map((t, i) => ((t.toolResults ?? []).some((r) => r.isError) ? i : -1))
    .filter((i) => i >= 0);
  const lastErrorTurn = errorTurns.length ? errorTurns[errorTurns.length - 1]! : -1;
  const base = {
    caseId: c.id,
    repeat: obs.repeat,
    expectedLabel: expectedLabel(c),
    calls,
    answered,
    rejected,
    errorReturned: errorTurns.length > 0,
    latencyMs: obs.latencyMs,
    inputTokens: obs.usage.inputTokens,
    outputTokens: obs.usage.outputTokens,
  };
  const first = obs.turns[0];
  if (obs.status !== 'ok' || !first) {
    const m = missing(c, obs.repeat);
    return {
      ...m,
      ...base,
      status: 'provider_error',
      ...(obs.error ? { errorCode: obs.error.code } : {}),
      problems: [`provider error: ${obs.error?.code ?? 'unknown'}`],
    };
  }
  const firstCalls = checkedTurns[0]!;
  const clarified =
    first.outcome.kind === 'text' && firstCalls.length === 0 && ctx.clarification.test(first.outcome.text);
  const key = obs.turns.map((t, i) => outcomeKey(t.outcome, checkedTurns[i]!, ctx.clarification)).join(' | ');

  if (c.expected.kind === 'judge') {
    const slot = judgeSlot(c, obs, ctx, checkedTurns, null)!;
    return {
      ...base,
      status: 'ok',
      decisionLabel: labelOf(firstCalls.map((x) => x.name)),
      selectionPass: null,
      argsPass: null,
      exactMatch: null,
      strictPass: slot.pass === true,
      clarified,
      recovered: base.errorReturned && slot.pass === true,
      key,
      problems: judgeProblems(slot),
      judge: slot,
    };
  }

  if (c.expected.kind === 'state') {
    const ok = obs.endState !== undefined && deepEqual(c.expected.expected, obs.endState);
    return {
      ...base,
      status: 'ok',
      decisionLabel: labelOf(firstCalls.map((x) => x.name)),
      selectionPass: null,
      argsPass: null,
      exactMatch: null,
      strictPass: ok,
      clarified,
      recovered: base.errorReturned && ok,
      key,
      problems: ok
        ? []
        : [
            `end state ${JSON.stringify(obs.endState) ?? '(none)'} differs from ${JSON.stringify(c.expected.expected)}`.slice(
              0,
              1000,
            ),
          ],
    };
  }

  if (c.expected.kind === 'trajectory') {
    const made = calls.map((x) => ({ name: x.name, args: x.parsed }));
    const t = matchTrajectory(c.expected, made);
    const afterError = checkedTurns.slice(lastErrorTurn + 1).some((x) => x.length > 0);
    return {
      ...base,
      status: 'ok',
      decisionLabel: labelOf(firstCalls.map((x) => x.name)),
      selectionPass: null,
      argsPass: null,
      exactMatch: null,
      strictPass: t.ok,
      clarified,
      recovered: base.errorReturned && t.ok && afterError,
      key,
      problems: t.problem ? [t.problem] : [],
      ...(c.judge ? { judge: judgeSlot(c, obs, ctx, checkedTurns, t.ok)! } : {}),
    };
  }

  const argMatches: (ArgMatch & { tool: string })[] = [];
  const decision = judgeDecision(c, first.outcome, firstCalls, ctx, false, argMatches);
  const exact = judgeDecision(c, first.outcome, firstCalls, ctx, true);
  // The final decision: the last answer that made calls, else the last answer.
  let finalIdx = obs.turns.length - 1;
  for (let i = obs.turns.length - 1; i >= 0; i--) {
    if (checkedTurns[i]!.length) {
      finalIdx = i;
      break;
    }
  }
  const final =
    finalIdx === 0 ? decision : judgeDecision(c, obs.turns[finalIdx]!.outcome, checkedTurns[finalIdx]!, ctx, false);
  const e = c.expected;
  const selectionPass =
    e.kind === 'tool' ? labelOf(firstCalls.map((x) => x.name)) === expectedLabel(c) : firstCalls.length === 0;
  const hasArgs = e.kind === 'tool' && e.calls.some((x) => x.args);
  const argsPass =
    e.kind === 'tool' && selectionPass && hasArgs
      ? callsProblems(e.calls, firstCalls, false, askFor(c, ctx)).length === 0
      : null;
  return {
    ...base,
    status: 'ok',
    decisionLabel: labelOf(firstCalls.map((x) => x.name)),
    selectionPass,
    argsPass,
    exactMatch: exact.pass,
    strictPass: final.pass,
    clarified,
    recovered: base.errorReturned && final.pass && finalIdx > lastErrorTurn,
    key,
    problems: final.problems,
    ...(c.judge ? { judge: judgeSlot(c, obs, ctx, checkedTurns, decision.pass)! } : {}),
    ...(argMatches.length ? { argMatches } : {}),
  };
}
