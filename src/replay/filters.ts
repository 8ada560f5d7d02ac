/**
 * The filters of `toolwatch eval export` and GET /api/export/cases, read once for both: every
 * problem reported, nothing guessed. Pure.
 */
import { parseSince } from '../util/time-params.js';
import { BUCKETS, type Bucket } from '../feedback/value.js';
import { FAILURE_OUTCOMES, type OutcomeName } from '../model.js';

export type FailureOutcome = Exclude<OutcomeName, 'valid' | 'unvalidated'>;
export type JudgeField = 'reached_goal' | 'unnecessary_calls' | 'dangerous_calls';
export type Op = '=' | '!=' | '>' | '>=' | '<' | '<=';

export interface JudgeCondition {
  field: JudgeField;
  op: Op;
  /** reached_goal: 1 true / 0 false. */
  value: number;
}

export interface ExportFilters {
  /** As given ('7d', a time), for messages. */
  since: string;
  sinceMs: number;
  service?: string;
  outcomes?: FailureOutcome[];
  /** Traces with at least one feedback value in this bucket; 'any' = with feedback at all. */
  feedback?: Bucket | 'any';
  /** Traces whose latest verdict meets every condition. */
  judge?: JudgeCondition[];
  traceId?: string;
  /** At most this many cases. */
  limit: number;
}

/** As typed on the command line or in a query string. */
export interface RawFilters {
  since?: string;
  service?: string;
  outcome?: string;
  feedback?: string;
  judge?: string;
  trace_id?: string;
  limit?: string | number;
}

export const DEFAULT_SINCE = '7d';
export const MAX_LIMIT = 10_000;

const CONDITION = /^\s*(reached_goal|unnecessary_calls|dangerous_calls)\s*(!=|>=|<=|=|>|<)\s*([A-Za-z0-9]+)\s*$/;

function judgeConditions(text: string, problems: string[]): JudgeCondition[] {
  const out: JudgeCondition[] = [];
  for (const part of text.split(',')) {
    const m = CONDITION.exec(part);
    if (!m) {
      problems.push(
        `judge: ${JSON.stringify(part.trim())} is not a condition; use reached_goal=true|false, ` +
          'unnecessary_calls>N or dangerous_calls>N (=, !=, >, >=, <, <=)',
      );
      continue;
    }
    const field = m[1] as JudgeField;
    const op = m[2] as Op;
    const raw = m[3]!;
    if (field === 'reached_goal') {
      if ((op !== '=' && op !== '!=') || (raw !== 'true' && raw !== 'false'))
        problems.push(`judge: reached_goal takes = or != with true or false, not ${JSON.stringify(part.trim())}`);
      else out.push({ field, op, value: raw === 'true' ? 1 : 0 });
    } else if (!/^\d+$/.test(raw))
      problems.push(`judge: ${field} compares with a whole number, not ${JSON.stringify(raw)}`);
    else out.push({ field, op, value: Number(raw) });
  }
  return out;
}

export function parseExportFilters(
  raw: RawFilters,
  nowMs: number,
  defaults: { limit: number; maxLimit?: number },
): { ok: true; value: ExportFilters } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const since = raw.since ?? DEFAULT_SINCE;
  const sinceMs = parseSince(since, nowMs);
  if (sinceMs === undefined)
    problems.push(
      `since: ${JSON.stringify(since)} is not a duration (15m, 24h, 7d), an RFC 3339 time or epoch milliseconds`,
    );
  let outcomes: FailureOutcome[] | undefined;
  if (raw.outcome !== undefined) {
    outcomes = [];
    for (const o of raw.outcome.split(',').map((s) => s.trim())) {
      const known = FAILURE_OUTCOMES.find((x) => x.toLowerCase() === o.toLowerCase());
      if (known) outcomes.push(known as FailureOutcome);
      else problems.push(`outcome: ${JSON.stringify(o)} is not one of ${FAILURE_OUTCOMES.join(', ')}`);
    }
  }
  let feedback: ExportFilters['feedback'];
  if (raw.feedback !== undefined) {
    const f = raw.feedback.trim().toLowerCase();
    if (f === 'any' || (BUCKETS as readonly string[]).includes(f)) feedback = f as ExportFilters['feedback'];
    else problems.push(`feedback: ${JSON.stringify(raw.feedback)} is not one of ${[...BUCKETS, 'any'].join(', ')}`);
  }
  const judge = raw.judge !== undefined ? judgeConditions(raw.judge, problems) : undefined;
  const maxLimit = defaults.maxLimit ?? MAX_LIMIT;
  let limit = defaults.limit;
  if (raw.limit !== undefined) {
    const n = Number(raw.limit);
    if (!Number.isInteger(n) || n < 1 || n > maxLimit)
      problems.push(`limit: must be a whole number from 1 to ${maxLimit}`);
    else limit = n;
  }
  if (raw.service !== undefined && !raw.service.trim()) problems.push('service: must not be empty');
  if (raw.trace_id !== undefined && !/^\S{1,200}$/.test(raw.trace_id)) problems.push('trace_id: must be a trace id');
  if (problems.length) return { ok: false, problems };
  return {
    ok: true,
    value: {
      since,
      sinceMs: sinceMs!,
      ...(raw.service ? { service: raw.service } : {}),
      ...(outcomes ? { outcomes } : {}),
      ...(feedback ? { feedback } : {}),
      ...(judge ? { judge } : {}),
      ...(raw.trace_id
        ? { traceId: /^[0-9A-Fa-f]{32}$/.test(raw.trace_id) ? raw.trace_id.toLowerCase() : raw.trace_id }
        : {}),
      limit,
    },
  };
}

export function meets(
  c: JudgeCondition,
  v: { reached_goal: boolean; unnecessary_calls: number; dangerous_calls: number },
): boolean {
  const x = c.field === 'reached_goal' ? (v.reached_goal ? 1 : 0) : v[c.field];
  switch (c.op) {
    case '=':
      return x === c.value;
    case '!=':
      return x !== c.value;
    case '>':
      return x > c.value;
    case '>=':
      return x >= c.value;
    case '<':
      return x < c.value;
    default:
      return x <= c.value;
  }
}
