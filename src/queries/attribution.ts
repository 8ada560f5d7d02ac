/**
 * Attribution as a reader may see it: the change events around a failure's start and the counts of
 * each candidate's windows, read from the store, judged by src/changes/attribute.ts. Rates come from
 * call_minutes (what toolwatch_tool_calls_total counts); the share on the new value from
 * version_minutes (definition versions, providers) or call_minutes' model column.
 */
import {
  candidatesFor,
  describeAttribution,
  judge,
  noChangeText,
  type Attribution,
  type AttributionSubject,
  type Candidate,
  type CandidateCounts,
  type Judged,
} from '../changes/attribute.js';
import { listChanges, type ChangeEvent } from '../changes/store.js';
import { FAILURE_OUTCOMES } from '../model.js';
import type { Rate } from '../changes/stats.js';
import { num } from '../store/rows.js';
import type { Sql } from '../store/sql.js';
import { isoTime } from '../util/iso-time.js';

export interface AttributionOptions {
  windowMs: number;
  pValue: number;
  nowMs: number;
}

/** The attribution of one subject; the reader's view is the caller's to check (the subject is of a visible service). */
export async function attribute(sql: Sql, subject: AttributionSubject, opts: AttributionOptions): Promise<Attribution> {
  // Enough history to bound the oldest candidate's before window, and everything after (the next change).
  const events = await listChanges(sql, {
    service: subject.service,
    sinceMs: subject.beganMs - 2 * opts.windowMs,
    limit: 1000,
  });
  const candidates = candidatesFor(subject, events, opts);
  const counted = [];
  for (const c of candidates) counted.push({ ...c, counts: await countsFor(sql, subject, c) });
  return judge(counted, opts.pValue);
}

async function countsFor(sql: Sql, s: AttributionSubject, c: Candidate): Promise<CandidateCounts> {
  const [before, after] = await Promise.all([rateIn(sql, s, c.windows.before), rateIn(sql, s, c.windows.after)]);
  const afterOnNew = await failuresOnNew(sql, s, c);
  return { before, after, ...(afterOnNew !== undefined ? { afterOnNew } : {}) };
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

async function rateIn(sql: Sql, s: AttributionSubject, w: { sinceMs: number; untilMs: number }): Promise<Rate> {
  const params: unknown[] = [s.service, w.sinceMs, w.untilMs];
  // The share of a tool is over all the service's calls; every other rate is the subject tool's.
  const ofTool = s.tool !== undefined && s.of !== 'share';
  if (ofTool) params.push(s.tool);
  const [table, by] =
    s.of === 'executions'
      ? ['execution_minutes', 'status']
      : s.of === 'share'
        ? ['call_minutes', 'tool']
        : ['call_minutes', 'outcome'];
  const rows = await sql.all(
    `SELECT ${by} AS v, SUM(count) AS n FROM ${table} WHERE service = ? AND minute >= ? AND minute < ?
     ${ofTool ? 'AND tool = ?' : ''} GROUP BY ${by}`,
    params,
  );
  let calls = 0;
  let failures = 0;
  for (const r of rows) {
    const v = String(r['v']);
    const n = num(r['n']);
    if (s.of === 'share') {
      calls += n;
      if (v === s.tool) failures += n;
      continue;
    }
    if (s.of !== 'executions' && v === 'unvalidated') continue;
    calls += n;
    if (s.outcomes.includes(v)) failures += n;
  }
  return { calls, failures };
}

/**
 * Of the after window's failures, those on the change's new value: per definition version and
 * provider from version_minutes (calls only: executions are not counted per version), per model from
 * call_minutes or execution_minutes. A service-wide subject's definition change counts the changed tool.
 */
async function failuresOnNew(sql: Sql, s: AttributionSubject, c: Candidate): Promise<number | undefined> {
  const { kind, to } = c.event;
  const w = c.windows.after;
  const tool = s.tool ?? (kind === 'tool_definition' ? c.event.tool : undefined);
  const toolSql = tool !== undefined ? 'AND tool = ?' : '';
  const toolParam = tool !== undefined ? [tool] : [];
  const failed = (column: string) =>
    s.of === 'share'
      ? { text: '', params: [] }
      : { text: `AND ${column} IN (${marks(s.outcomes.length)})`, params: s.outcomes };
  let rows: Record<string, unknown>[];
  if ((kind === 'tool_definition' || kind === 'provider') && s.of !== 'executions') {
    const column = kind === 'tool_definition' ? 'version' : 'provider';
    const f = failed('outcome');
    rows = await sql.all(
      `SELECT SUM(count) AS n FROM version_minutes WHERE service = ? AND ${column} = ? AND minute >= ? AND minute < ?
       ${toolSql} ${f.text}`,
      [s.service, to, w.sinceMs, w.untilMs, ...toolParam, ...f.params],
    );
  } else if (kind === 'model') {
    const [table, column] = s.of === 'executions' ? ['execution_minutes', 'status'] : ['call_minutes', 'outcome'];
    const f = failed(column);
    rows = await sql.all(
      `SELECT SUM(count) AS n FROM ${table} WHERE service = ? AND model = ? AND minute >= ? AND minute < ?
       ${toolSql} ${f.text}`,
      [s.service, to, w.sinceMs, w.untilMs, ...toolParam, ...f.params],
    );
  } else return undefined;
  const n = rows[0]?.['n'];
  return n === null || n === undefined ? 0 : num(n);
}

/** A judged candidate as the API shows it. */
export function presentJudged(subject: Pick<AttributionSubject, 'tool' | 'outcomes' | 'of'>, j: Judged) {
  return {
    change: { ...j.event, time: isoTime(j.event.timeMs) },
    before: { since: isoTime(j.windows.before.sinceMs), until: isoTime(j.windows.before.untilMs), ...j.before },
    after: { since: isoTime(j.windows.after.sinceMs), until: isoTime(j.windows.after.untilMs), ...j.after },
    test: j.test,
    p: j.p,
    pText: j.pText,
    shareOnNew: j.shareOnNew,
    significant: j.significant,
    text: describeAttribution(subject, j),
  };
}

/** `likely_change` and the candidates, as GET /api/problems/:id shows them. */
export function presentAttribution(subject: AttributionSubject, a: Attribution, windowMs: number) {
  return {
    likely_change: a.likely ? presentJudged(subject, a.likely) : null,
    attribution: {
      window: `${Math.round(windowMs / 60_000)}m`,
      text: a.likely ? describeAttribution(subject, a.likely) : noChangeText(windowMs, a.candidates.length),
      candidates: a.candidates.map((j) => presentJudged(subject, j)),
    },
  };
}

/**
 * What one change did to its scope's failure rate (every structural failure outcome): the tool's
 * for a definition change, the service's otherwise — on the same windows attribution judges it on.
 * `events`: the service's events around it (to bound the windows).
 */
export async function impactOf(
  sql: Sql,
  event: ChangeEvent,
  events: readonly ChangeEvent[],
  opts: AttributionOptions,
): Promise<Judged | undefined> {
  const subject: AttributionSubject = {
    service: event.service,
    ...(event.kind === 'tool_definition' && event.tool !== undefined ? { tool: event.tool } : {}),
    outcomes: FAILURE_OUTCOMES,
    beganMs: event.timeMs,
  };
  const c = candidatesFor(subject, events, opts).find((x) => x.event.id === event.id);
  if (!c) return undefined;
  return judge([{ ...c, counts: await countsFor(sql, subject, c) }], opts.pValue).candidates[0];
}
