/**
 * Problems as a reader may see them, for the built-in page: the window's problems (new and regressed
 * first, as GET /api/problems sorts them) with their models, and one problem with its hourly counts,
 * models, kept examples and the change events of its service shortly before it began. Fields the
 * problem store adds later (cost, likely cause) pass through as they are.
 */
import { listChanges, type ChangeEvent } from '../changes/store.js';
import {
  problemById,
  problemExamples,
  problemHours,
  problemModels,
  queryProblems,
  type ListedProblem,
  type ProblemRow,
  type ProblemStatus,
} from '../problems/store.js';
import type { ProblemExample } from '../problems/delta.js';
import type { Row } from '../store/sql.js';
import { storeFilter } from '../util/service-view.js';
import type { Reader } from './reader.js';

export type { ProblemExample } from '../problems/delta.js';

/** How far before a problem's first occurrence its service's changes are listed with it. */
export const CHANGES_BEFORE_MS = 6 * 3_600_000;
const MODELS_LISTED = 5;

export interface ProblemModel {
  model: string;
  count: number;
}

export type ListedProblemView = ListedProblem & { models: ProblemModel[]; hours: { hour: number; count: number }[] };

export async function problemsOverview(
  r: Reader,
  q: { sinceMs: number; service?: string; tool?: string; status?: ProblemStatus; limit: number },
): Promise<ListedProblemView[]> {
  const listed = await queryProblems(r.store.sql, {
    sinceMs: q.sinceMs,
    ...(q.service ? { service: q.service } : {}),
    ...(q.tool ? { tool: q.tool } : {}),
    ...(q.status ? { status: q.status } : {}),
    sees: (s) => r.view.sees(s),
    limit: q.limit,
  });
  return Promise.all(
    listed.map(async (p) => {
      const [models, hours] = await Promise.all([
        problemModels(r.store.sql, p.service, p.id),
        problemHours(r.store.sql, p.service, p.id),
      ]);
      return { ...p, models: models.slice(0, MODELS_LISTED), hours };
    }),
  );
}

export interface ProblemDetail {
  problem: ProblemRow;
  hours: { hour: number; count: number }[];
  models: ProblemModel[];
  examples: ProblemExample[];
  /** The service's change events from CHANGES_BEFORE_MS before the first occurrence to the last, oldest first. */
  changes: ChangeEvent[];
}

export type ProblemLookup = { kind: 'one'; detail: ProblemDetail } | { kind: 'none' } | { kind: 'ambiguous' };

/** One problem the reader may see; `_other` exists once per service, so it may need the service. */
export async function problemDetail(r: Reader, id: string, service?: string): Promise<ProblemLookup> {
  const sql = r.store.sql;
  const rows = (await problemById(sql, id, service)).filter((p) => r.view.sees(p.service));
  if (rows.length === 0) return { kind: 'none' };
  if (rows.length > 1) return { kind: 'ambiguous' };
  const p = rows[0]!;
  const [hours, models, examples, changes] = await Promise.all([
    problemHours(sql, p.service, p.id),
    problemModels(sql, p.service, p.id),
    problemExamples(sql, p.service, p.id),
    listChanges(sql, {
      ...storeFilter(r.view),
      service: p.service,
      sinceMs: p.firstSeenMs - CHANGES_BEFORE_MS,
      limit: 50,
    }),
  ]);
  return {
    kind: 'one',
    detail: {
      problem: p,
      hours,
      models,
      examples: examples.map(toExample).sort((a, b) => a.timeMs - b.timeMs),
      changes: changes.filter((c) => c.timeMs <= p.lastSeenMs).reverse(),
    },
  };
}

function toExample(e: Row): ProblemExample {
  return {
    slot: String(e.slot),
    timeMs: Number(e.time_ms),
    model: String(e.model),
    traceId: String(e.trace_id),
    spanId: String(e.span_id),
    name: String(e.name),
    ...(e.arguments !== null && e.arguments !== undefined ? { arguments: String(e.arguments) } : {}),
    message: String(e.message),
  };
}
