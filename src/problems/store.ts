/**
 * The problem tables (migration 11) over the SQL port: the reads (the batch's write is write.ts).
 */
import type { Row, Sql } from '../store/sql.js';

export const OTHER_PROBLEM = '_other';

export const PROBLEM_STATUSES = ['open', 'resolved', 'regressed', 'muted'] as const;
export type ProblemStatus = (typeof PROBLEM_STATUSES)[number];

export interface ProblemRow {
  service: string;
  id: string;
  outcome: string;
  tool: string;
  canonical: string;
  parts: string[];
  firstSeenMs: number;
  lastSeenMs: number;
  occurrences: number;
  status: ProblemStatus;
  statusMs: number;
  mutedUntilMs: number | null;
}

/** A stored signature's parts (a JSON array of strings). */
export function partsOf(stored: unknown): string[] {
  try {
    const v: unknown = JSON.parse(String(stored));
    if (Array.isArray(v)) return v.map(String);
  } catch {
    // A row no writer of ours made reads as having no parts.
  }
  return [];
}

function toProblem(r: Row): ProblemRow {
  const parts = partsOf(r.parts);
  return {
    service: String(r.service),
    id: String(r.id),
    outcome: String(r.outcome),
    tool: String(r.tool),
    canonical: String(r.canonical),
    parts,
    firstSeenMs: Number(r.first_seen_ms),
    lastSeenMs: Number(r.last_seen_ms),
    occurrences: Number(r.occurrences),
    status: String(r.status) as ProblemStatus,
    statusMs: Number(r.status_ms),
    mutedUntilMs: r.muted_until_ms === null || r.muted_until_ms === undefined ? null : Number(r.muted_until_ms),
  };
}

/** Every problem of a service (all services when undefined), most occurrences first. */
export async function listProblems(sql: Sql, service?: string): Promise<ProblemRow[]> {
  const rows = await sql.all(
    `SELECT * FROM problems ${service === undefined ? '' : 'WHERE service = ?'} ORDER BY occurrences DESC, id`,
    service === undefined ? [] : [service],
  );
  return rows.map(toProblem);
}

export async function problemHours(sql: Sql, service: string, id: string): Promise<{ hour: number; count: number }[]> {
  const rows = await sql.all('SELECT hour, count FROM problem_hours WHERE service = ? AND id = ? ORDER BY hour', [
    service,
    id,
  ]);
  return rows.map((r) => ({ hour: Number(r.hour), count: Number(r.count) }));
}

export async function problemModels(
  sql: Sql,
  service: string,
  id: string,
): Promise<{ model: string; count: number }[]> {
  const rows = await sql.all(
    'SELECT model, count FROM problem_models WHERE service = ? AND id = ? ORDER BY count DESC, model',
    [service, id],
  );
  return rows.map((r) => ({ model: String(r.model), count: Number(r.count) }));
}

export async function problemExamples(sql: Sql, service: string, id: string): Promise<Row[]> {
  return sql.all('SELECT * FROM problem_examples WHERE service = ? AND id = ? ORDER BY slot', [service, id]);
}

export interface ProblemFilter {
  status?: ProblemStatus;
  service?: string;
  tool?: string;
  outcome?: string;
  model?: string;
  /** Occurrences are counted from this hour on; only problems seen since are listed. */
  sinceMs: number;
  /** The services the reader may see. */
  sees: (service: string) => boolean;
  limit: number;
}

export interface ListedProblem extends ProblemRow {
  /** Occurrences from the hour of `sinceMs` on. */
  recent: number;
  /** First seen since `sinceMs`. */
  isNew: boolean;
}

/**
 * Problems seen since the window's start, new (first seen in it) and regressed ones first, then by
 * occurrences in the window. The service view is applied before the limit.
 */
export async function queryProblems(sql: Sql, f: ProblemFilter): Promise<ListedProblem[]> {
  const hour = f.sinceMs - (f.sinceMs % 3_600_000);
  const where = ['p.last_seen_ms >= ?'];
  const args: unknown[] = [hour, f.sinceMs];
  for (const [column, value] of [
    ['p.status', f.status],
    ['p.service', f.service],
    ['p.tool', f.tool],
    ['p.outcome', f.outcome],
  ] as const)
    if (value !== undefined) where.push(`${column} = ?`), args.push(value);
  if (f.model !== undefined) {
    where.push('EXISTS (SELECT 1 FROM problem_models m WHERE m.service = p.service AND m.id = p.id AND m.model = ?)');
    args.push(f.model);
  }
  const rows = await sql.all(
    `SELECT p.*, (SELECT COALESCE(SUM(h.count), 0) FROM problem_hours h
                  WHERE h.service = p.service AND h.id = p.id AND h.hour >= ?) AS recent
     FROM problems p WHERE ${where.join(' AND ')}`,
    args,
  );
  const listed = rows
    .map((r) => ({ ...toProblem(r), recent: Number(r.recent) }))
    .filter((p) => f.sees(p.service))
    .map((p) => ({ ...p, isNew: p.firstSeenMs >= f.sinceMs }));
  const first = (p: ListedProblem) => (p.status === 'regressed' || (p.isNew && p.status === 'open') ? 0 : 1);
  listed.sort(
    (a, b) =>
      first(a) - first(b) ||
      b.recent - a.recent ||
      b.occurrences - a.occurrences ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  return listed.slice(0, f.limit);
}

/** One problem by id; the same id may exist in several services (`_other`), so the service may be given. */
export async function problemById(sql: Sql, id: string, service?: string): Promise<ProblemRow[]> {
  const rows = await sql.all(
    `SELECT * FROM problems WHERE id = ?${service === undefined ? '' : ' AND service = ?'} ORDER BY service`,
    service === undefined ? [id] : [id, service],
  );
  return rows.map(toProblem);
}
