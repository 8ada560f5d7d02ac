/**
 * The problem tables (migration 11) over the SQL port: the batch's write-only extension, and reads.
 *
 * Bounded without reading in the write: a problem row is inserted only while its service has fewer
 * than `maxPerService` problems (an existing one is always updated); a failure that finds no row of
 * its own is counted in the service's `_other` row instead, in the same statements of the same
 * transaction, so every failed call lands in exactly one problem. Replicas committing at the same
 * moment may each add the last allowed row: the cap can be passed by one row per concurrent writer.
 */
import type { BatchExtension, BatchTx, Row, Sql } from '../store/sql.js';
import type { ProblemDelta } from './record.js';

export const OTHER_PROBLEM = '_other';

export const PROBLEM_STATUSES = ['open', 'resolved', 'regressed', 'muted'] as const;
export type ProblemStatus = (typeof PROBLEM_STATUSES)[number];

interface WriteOptions {
  dialect: Sql['dialect'];
  maxPerService: number;
  /** The writer's clock: a new problem's recorded_ms and a regression's status_ms (alerts read them). */
  nowMs?: number;
}

export function problemExtension(
  deltas: readonly ProblemDelta[],
  opts: WriteOptions,
  kept?: KeptExamples,
): BatchExtension {
  const sql = STATEMENTS[opts.dialect];
  const statusMs = (d: ProblemDelta) => opts.nowMs ?? d.lastMs;
  const recordedMs = opts.nowMs ?? Date.now();
  const extension: BatchExtension = (tx) => {
    for (const d of deltas) writeDelta(tx, sql, d, statusMs(d), recordedMs, opts.maxPerService);
  };
  // Once committed, the slots kept for good are known (the deltas of a later batch leave them out).
  if (kept)
    extension.committed = () => {
      for (const d of deltas)
        for (const slot of d.examples.keys()) if (slot !== 'latest') kept.add(d.service, d.signature.hash, slot);
    };
  return extension;
}

/**
 * The example slots written once and never replaced (`first`, `model:<model>`) that a committed
 * transaction of this process wrote, per (service, problem id). Rows of the problem tables are never
 * deleted, and the row such a slot went to (the problem's own, or `_other` when its service was full)
 * stays the one it goes to, so writing it again would change nothing. Bounded: past `max` slots it
 * starts over (the next writes of a slot only do nothing again).
 */
export class KeptExamples {
  private readonly byService = new Map<string, Map<string, Set<string>>>();
  private size = 0;

  constructor(private readonly max = 100_000) {}

  has(service: string, id: string, slot: string): boolean {
    return this.byService.get(service)?.get(id)?.has(slot) ?? false;
  }

  add(service: string, id: string, slot: string): void {
    if (this.size >= this.max) {
      this.byService.clear();
      this.size = 0;
    }
    let ids = this.byService.get(service);
    if (!ids) this.byService.set(service, (ids = new Map()));
    let slots = ids.get(id);
    if (!slots) ids.set(id, (slots = new Set()));
    if (!slots.has(slot)) {
      slots.add(slot);
      this.size++;
    }
  }
}

const big = 'CAST(? AS BIGINT)';
const txt = 'CAST(? AS TEXT)';

/** The statements of one engine, built once (the statement cache finds them by the same string). */
function statements(dialect: Sql['dialect']) {
  const max = dialect === 'postgres' ? 'GREATEST' : 'MAX';
  const min = dialect === 'postgres' ? 'LEAST' : 'MIN';
  // The id its rows go under, decided by the problem statement before them.
  const target = `CASE WHEN EXISTS (SELECT 1 FROM problems WHERE service = ? AND id = ?) THEN ${txt} ELSE '${OTHER_PROBLEM}' END`;
  const own = (column: string, other: string) => `CASE WHEN d.own THEN d.${column} ELSE ${other} END`;
  const example = (onConflict: string) =>
    `INSERT INTO problem_examples (service, id, slot, time_ms, model, trace_id, span_id, name, arguments, message)
       SELECT ${txt}, ${target}, ${txt}, ${big}, ${txt}, ${txt}, ${txt}, ${txt}, ${txt}, ${txt} WHERE 1 = 1
       ON CONFLICT (service, id, slot) ${onConflict}`;
  return {
    // Its own row when it exists or the service has room, else the service's overflow row: one
    // statement, so no other writer's commit can fall between the two choices.
    problem: `INSERT INTO problems (service, id, outcome, tool, canonical, parts, first_seen_ms, last_seen_ms, occurrences,
         status, status_ms, recorded_ms)
       SELECT d.service, ${own('id', `'${OTHER_PROBLEM}'`)}, ${own('outcome', `'${OTHER_PROBLEM}'`)},
         ${own('tool', `'${OTHER_PROBLEM}'`)}, ${own('canonical', 'd.other_canonical')}, ${own('parts', `'[]'`)},
         d.first_ms, d.last_ms, d.occurrences, 'open', d.status_ms, d.recorded_ms
       FROM (SELECT ${txt} AS service, ${txt} AS id, ${txt} AS outcome, ${txt} AS tool, ${txt} AS canonical,
         ${txt} AS parts, ${txt} AS other_canonical, ${big} AS first_ms, ${big} AS last_ms, ${big} AS occurrences,
         ${big} AS status_ms, ${big} AS recorded_ms,
         (EXISTS (SELECT 1 FROM problems WHERE service = ? AND id = ?)
           OR (SELECT COUNT(*) FROM problems WHERE service = ? AND id <> '${OTHER_PROBLEM}') < ${big}) AS own) d
       WHERE 1 = 1
       ON CONFLICT (service, id) DO UPDATE SET
         occurrences = problems.occurrences + excluded.occurrences,
         first_seen_ms = ${min}(problems.first_seen_ms, excluded.first_seen_ms),
         last_seen_ms = ${max}(problems.last_seen_ms, excluded.last_seen_ms),
         status = CASE WHEN problems.status = 'resolved' THEN 'regressed' ELSE problems.status END,
         status_ms = CASE WHEN problems.status = 'resolved' THEN excluded.status_ms ELSE problems.status_ms END`,
    hour: `INSERT INTO problem_hours (service, id, hour, count) SELECT ${txt}, ${target}, ${big}, ${big} WHERE 1 = 1
       ON CONFLICT (service, id, hour) DO UPDATE SET count = problem_hours.count + excluded.count`,
    model: `INSERT INTO problem_models (service, id, model, count, first_seen_ms, last_seen_ms)
       SELECT ${txt}, ${target}, ${txt}, ${big}, ${big}, ${big} WHERE 1 = 1
       ON CONFLICT (service, id, model) DO UPDATE SET count = problem_models.count + excluded.count,
         first_seen_ms = ${min}(problem_models.first_seen_ms, excluded.first_seen_ms),
         last_seen_ms = ${max}(problem_models.last_seen_ms, excluded.last_seen_ms)`,
    // The first and each model's first are kept once; the latest is replaced by a later one.
    latest: example(`DO UPDATE SET time_ms = excluded.time_ms, model = excluded.model, trace_id = excluded.trace_id,
             span_id = excluded.span_id, name = excluded.name, arguments = excluded.arguments, message = excluded.message
           WHERE excluded.time_ms >= problem_examples.time_ms`),
    kept: example('DO NOTHING'),
  };
}

const STATEMENTS = { sqlite: statements('sqlite'), postgres: statements('postgres') };

function writeDelta(
  tx: BatchTx,
  sql: (typeof STATEMENTS)['sqlite'],
  d: ProblemDelta,
  statusMs: number,
  recordedMs: number,
  maxPerService: number,
): void {
  const id = d.signature.hash;
  const s = d.signature;
  const { service } = d;
  tx.run(sql.problem, [
    service,
    id,
    s.outcome,
    s.tool,
    s.canonical,
    JSON.stringify(s.parts),
    JSON.stringify(['tw1', OTHER_PROBLEM, service]),
    d.firstMs,
    d.lastMs,
    d.occurrences,
    statusMs,
    recordedMs,
    service,
    id,
    service,
    maxPerService,
  ]);
  for (const [hour, count] of d.hours) tx.run(sql.hour, [service, service, id, id, hour, count]);
  for (const [model, m] of d.models) tx.run(sql.model, [service, service, id, id, model, m.count, m.firstMs, m.lastMs]);
  for (const ex of d.examples.values())
    tx.run(ex.slot === 'latest' ? sql.latest : sql.kept, [
      service,
      service,
      id,
      id,
      ex.slot,
      ex.timeMs,
      ex.model,
      ex.traceId,
      ex.spanId,
      ex.name,
      ex.arguments ?? null,
      ex.message,
    ]);
}

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
