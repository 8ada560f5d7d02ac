/**
 * Rule kinds live in a registry, not a switch: each kind brings the JSON Schema of its own keys,
 * an optional loader (the only I/O, thin) and a pure evaluate(). The registry is built per service
 * instance (src/kinds.ts: the built-in kinds of kinds/index.ts and the judge's judge_goal_rate);
 * the config phase checks each rule's keys against its kind's schema.
 */
import type { CallCountQuery, CallCountRow, ExecutionCountRow } from '../store/store.js';
import { MINUTE_MS, minuteOf } from '../store/store.js';
import { parseDuration } from '../util/duration.js';
import type { CauseSubject } from './cause.js';

/**
 * What rules read beyond the store's counts: one member per feature that brings rule kinds of its
 * own. Empty here on purpose — the feature adds its member from its own folder, next to its kinds,
 * by declaration merging:
 *
 *     declare module '../alerts/rules.js' {
 *       interface RuleSources { judge: JudgeRuleSource }
 *     }
 *
 * so alerts/ never names the features whose kinds it runs (they import it, never the reverse), and
 * the services hand each source in through `AlertingDeps.sources`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from the features (see above)
export interface RuleSources {}

/**
 * What a rule may read. The evaluator passes the store and the sources the services run (a source
 * is absent when its feature is off); tests pass plain functions.
 */
export interface RuleIO extends Partial<RuleSources> {
  callCounts(q: CallCountQuery): Promise<CallCountRow[]>;
  /** Tool executions by status and call outcome (execution_error_rate, error_rate with include_execution). */
  executionCounts?(q: CallCountQuery): Promise<ExecutionCountRow[]>;
}

/** Text for people in segments: `code` ones came from spans or schemas (names) and are shown as code, escaped. */
export type Words = ({ text: string } | { code: string })[];

/** What a problem alert (new_problem, regressed_problem) tells about its problem. */
export interface ProblemFacts {
  id: string;
  service: string;
  tool: string;
  outcome: string;
  transition: 'new' | 'regressed';
  /** The signature in words: "refund_order: `amount` is missing". */
  what: Words;
  occurrences: number;
  firstSeenMs: number;
  lastSeenMs: number;
  /** When the problem was recorded (new) or seen again after it was resolved (regressed). */
  sinceMs: number;
  /** Calls by model, most first (at most 5). */
  models: { model: string; count: number }[];
  /** More models than listed. */
  moreModels: number;
  /** The first kept example's arguments (redacted as stored), when captured. */
  arguments?: string;
  /** What its repair turns cost so far (as /api/problems `cost`); absent where no cost was read. */
  cost?: ProblemCostFacts;
}

/** A problem's repair cost: turns, tokens and time after its failures; `usd` when problems.prices prices them. */
export interface ProblemCostFacts {
  repairs: number;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
  /** null: problems.prices prices none of its models. */
  usd: number | null;
  /** Tokens of models problems.prices does not price (not in `usd`). */
  unpricedTokens: number;
}

/** Extra facts for the message: top tools, shifted shares, the p-value… all optional. */
export interface AlertDetails {
  window?: string;
  checked?: number;
  failed?: number;
  total?: number;
  topTools?: { tool: string; failed: number; checked: number }[];
  shifts?: { tool: string; before: number; after: number }[];
  pValue?: number;
  distance?: number;
  baseline?: number;
  /** Problem alerts: the problem in words and numbers. */
  problem?: ProblemFacts;
  /** Where the message links to (a path under alerts.public_url); default: the failures API of the group. */
  linkPath?: string;
  /** Filled by the evaluator when a firing message is sent: one stored failure of the group. */
  example?: {
    tool: string;
    name: string;
    outcome: string;
    path: string;
    message: string;
    traceId: string;
    time: string;
  };
  [key: string]: unknown;
}

/** One group's reading of one rule at one instant. */
export interface Observation {
  /** The group (e.g. {service, tool}); {} for an ungrouped rule. */
  labels: Record<string, string>;
  /** The rule's condition holds. */
  active: boolean;
  /**
   * Keeps an alert that is already pending or firing, without starting one (default: `active`).
   * For kinds whose condition to start differs from the one to last: a problem alert starts when the
   * problem was just recorded and lasts while the problem stays open.
   */
  keep?: boolean;
  value: number;
  threshold: number;
  /** One line for people: "error rate 12.5% > 1% (40 of 320 calls, 5m)". */
  summary: string;
  details: AlertDetails;
}

export interface RuleKind<P = Record<string, unknown>, D = unknown> {
  /** JSON Schema (an object schema) of the kind's own keys; defaults are applied to the config. */
  schema: Record<string, unknown>;
  /** Reads what evaluate needs. Default: call counts of `window` (and `baseline` when the params have one). */
  load?(params: P, io: RuleIO, now: number): Promise<D>;
  /** Pure: the same params, data and now give the same observations. */
  evaluate(params: P, data: D, now: number): Observation[];
  /**
   * What a firing alert of this kind is attributed on (src/alerts/cause.ts): the group's failures
   * before and after each change of its service. Absent: the kind's alerts carry no attribution.
   */
  cause?(params: P, labels: Record<string, string>, details: AlertDetails): CauseSubject | undefined;
}

/** Windows over the minute aggregates: whole minutes, the current (partial) one included, as /api/stats counts. */
export function currentWindow(now: number, windowMs: number): { sinceMs: number; untilMs: number } {
  const untilMs = minuteOf(now) + MINUTE_MS;
  return { sinceMs: untilMs - Math.max(MINUTE_MS, windowMs), untilMs };
}

/** The trailing baseline just before the current window (never overlapping it). */
export function baselineWindow(
  now: number,
  windowMs: number,
  baselineMs: number,
): { sinceMs: number; untilMs: number } {
  const cur = currentWindow(now, windowMs);
  return { sinceMs: cur.sinceMs - baselineMs, untilMs: cur.sinceMs };
}

export interface CallWindows {
  current: CallCountRow[];
  baseline: CallCountRow[];
}

/** The default loader: `window` (+ `baseline`) of call counts, optionally for one `service`. */
export async function loadCallWindows(
  params: { window?: string; baseline?: string; service?: string },
  io: RuleIO,
  now: number,
): Promise<CallWindows> {
  const windowMs = parseDuration(params.window ?? '5m') ?? 5 * MINUTE_MS;
  const svc = params.service ? { service: params.service } : {};
  const current = await io.callCounts({ ...currentWindow(now, windowMs), ...svc });
  const baselineMs = params.baseline ? parseDuration(params.baseline) : undefined;
  const baseline = baselineMs ? await io.callCounts({ ...baselineWindow(now, windowMs, baselineMs), ...svc }) : [];
  return { current, baseline };
}

/** The execution counts of `window`, optionally for one `service`; none when the store keeps no executions. */
export async function loadExecutionWindow(
  params: { window: string; service?: string },
  io: RuleIO,
  now: number,
): Promise<ExecutionCountRow[]> {
  if (!io.executionCounts) return [];
  const windowMs = parseDuration(params.window) ?? 5 * MINUTE_MS;
  return io.executionCounts({
    ...currentWindow(now, windowMs),
    ...(params.service ? { service: params.service } : {}),
  });
}

export type GroupLabel = 'service' | 'tool' | 'model';
export const GROUP_LABELS: readonly GroupLabel[] = ['service', 'tool', 'model'];

/** Sums rows per group of the `by` labels (call counts or execution counts alike). */
export function groupRows<R extends Record<GroupLabel, string>>(
  rows: readonly R[],
  by: readonly GroupLabel[],
): Map<string, { labels: Record<string, string>; rows: R[] }> {
  const out = new Map<string, { labels: Record<string, string>; rows: R[] }>();
  for (const r of rows) {
    const labels = Object.fromEntries(by.map((l) => [l, r[l]]));
    const key = groupKey(labels);
    let g = out.get(key);
    if (!g) out.set(key, (g = { labels, rows: [] }));
    g.rows.push(r);
  }
  return out;
}

/** A stable key for a label set (sorted, JSON), used for alert identity. */
export function groupKey(labels: Record<string, string>): string {
  return JSON.stringify(
    Object.keys(labels)
      .sort()
      .map((k) => [k, labels[k]]),
  );
}

export function pct(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const v = x * 100;
  return `${v >= 10 || v === 0 ? v.toFixed(1).replace(/\.0$/, '') : v.toPrecision(2)}%`;
}

/** The `by` key most kinds share, as a schema fragment. */
export const bySchema = {
  type: 'array',
  items: { enum: [...GROUP_LABELS] },
  uniqueItems: true,
  default: ['service'],
} as const;
