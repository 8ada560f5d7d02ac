/**
 * The batch's write of the problem tables (migration 11): a write-only extension over the SQL port.
 *
 * Bounded without reading in the write: a problem row is inserted only while its service has fewer
 * than `maxPerService` problems (an existing one is always updated); a failure that finds no row of
 * its own is counted in the service's `_other` row instead, in the same statements of the same
 * transaction, so every failed call lands in exactly one problem. Replicas committing at the same
 * moment may each add the last allowed row: the cap can be passed by one row per concurrent writer.
 *
 * A problem this process has not committed yet gets its own problem statement, so each new row is
 * decided after the one before it was inserted (one statement sees its own inserts only once it is
 * done). A problem it has committed already goes, with the batch's others, into multi-row
 * statements (rows.ts): its row exists, its own or `_other`, and stays the one it goes to (rows are
 * never deleted, a full service stays full), so no row of such a statement can be a new one past
 * the cap. Then the hours and the models, all the batch's in a statement each, after every problem
 * row is decided; the examples that can still change, one statement each. Rows that go to the same
 * `_other` are summed first (PostgreSQL's upsert cannot touch a row twice in one statement), and
 * every statement takes its rows in key order, so concurrent writers lock them in one order.
 */
import type { BatchExtension, BatchTx, Sql } from '../store/sql.js';
import type { ProblemDelta } from './delta.js';
import { type ColumnType, MultiRow } from './rows.js';
import type { CommittedProblems } from './committed.js';
import { OTHER_PROBLEM } from './store.js';
import { compareText } from '../util/compare-text.js';

interface WriteOptions {
  dialect: Sql['dialect'];
  maxPerService: number;
  /** The writer's clock: a new problem's recorded_ms and a regression's status_ms (alerts read them). */
  nowMs?: number;
}

export function problemExtension(
  deltas: readonly ProblemDelta[],
  opts: WriteOptions,
  committed?: CommittedProblems,
): BatchExtension {
  const sql = STATEMENTS[opts.dialect];
  const recordedMs = opts.nowMs ?? Date.now();
  const sorted = [...deltas].sort(
    (a, b) => compareText(a.service, b.service) || compareText(a.signature.hash, b.signature.hash),
  );
  const extension: BatchExtension = (tx) => writeDeltas(tx, sql, sorted, opts, recordedMs, committed);
  // Once committed, what it wrote is known: a later batch's deltas leave out what would change
  // nothing, or too little (record.ts), and its problems' rows go into multi-row statements.
  if (committed)
    extension.committed = () => {
      for (const d of deltas) {
        committed.wrote(d.service, d.signature.hash, opts.maxPerService);
        for (const ex of d.examples)
          if (ex.slot === 'latest') committed.wroteLatest(d.service, d.signature.hash, ex.timeMs);
          else if (ex.slot === 'first') committed.keptFirst(d.service, d.signature.hash);
          else committed.keptModel(d.service, d.signature.hash, ex.slot.slice('model:'.length));
      }
    };
  return extension;
}

const big = 'CAST(? AS BIGINT)';
const txt = 'CAST(? AS TEXT)';

/** The id a row of `v` goes under, decided by the problem statements before it. */
const TARGET = `CASE WHEN EXISTS (SELECT 1 FROM problems p WHERE p.service = v.service AND p.id = v.id) THEN v.id
  ELSE '${OTHER_PROBLEM}' END`;

/** The statements of one engine, built once (the statement caches find them by the same string). */
function statements(dialect: Sql['dialect']) {
  const max = dialect === 'postgres' ? 'GREATEST' : 'MAX';
  const min = dialect === 'postgres' ? 'LEAST' : 'MIN';
  const target = `CASE WHEN EXISTS (SELECT 1 FROM problems WHERE service = ? AND id = ?) THEN ${txt} ELSE '${OTHER_PROBLEM}' END`;
  const own = (column: string, other: string) => `CASE WHEN w.own = 1 THEN w.${column} ELSE ${other} END`;
  // PostgreSQL's upsert cannot touch a row twice in one statement: rows bound for one `_other` are
  // summed first, in key order. SQLite's takes the rows one by one, as separate statements would
  // (a sort there cost more than the statements it saves), and it has one writer at a time.
  const pg = dialect === 'postgres';
  const agg = (fn: string, column: string) => (pg ? `${fn}(${column})` : column);
  const grouped = (keys: string) => (pg ? `GROUP BY ${keys} ORDER BY ${keys}` : '');
  const example = (onConflict: string) =>
    `INSERT INTO problem_examples (service, id, slot, time_ms, model, trace_id, span_id, name, arguments, message)
       SELECT ${txt}, ${target}, ${txt}, ${big}, ${txt}, ${txt}, ${txt}, ${txt}, ${txt}, ${txt} WHERE 1 = 1
       ON CONFLICT (service, id, slot) ${onConflict}`;
  const problemColumns = `INSERT INTO problems (service, id, outcome, tool, canonical, parts, first_seen_ms, last_seen_ms,
         occurrences, status, status_ms, recorded_ms)`;
  const problemConflict = `ON CONFLICT (service, id) DO UPDATE SET
         occurrences = problems.occurrences + excluded.occurrences,
         first_seen_ms = ${min}(problems.first_seen_ms, excluded.first_seen_ms),
         last_seen_ms = ${max}(problems.last_seen_ms, excluded.last_seen_ms),
         status = CASE WHEN problems.status = 'resolved' THEN 'regressed' ELSE problems.status END,
         status_ms = CASE WHEN problems.status = 'resolved' THEN excluded.status_ms ELSE problems.status_ms END`;
  /** `id`: the id each row of `v` goes under (TARGET, or its own for problems known to have their row). */
  const hour = (id: string) =>
    new MultiRow(
      [
        ['service', 'TEXT'],
        ['id', 'TEXT'],
        ['hour', 'BIGINT'],
        ['count', 'BIGINT'],
      ],
      `INSERT INTO problem_hours (service, id, hour, count)
       SELECT d.service, d.id, d.hour, ${agg('SUM', 'd.count')}
       FROM (SELECT v.service, ${id} AS id, v.hour, v.count FROM v) d
       WHERE 1 = 1 ${grouped('d.service, d.id, d.hour')}
       ON CONFLICT (service, id, hour) DO UPDATE SET count = problem_hours.count + excluded.count`,
    );
  const model = (id: string) =>
    new MultiRow(
      [
        ['service', 'TEXT'],
        ['id', 'TEXT'],
        ['model', 'TEXT'],
        ['count', 'BIGINT'],
        ['first_ms', 'BIGINT'],
        ['last_ms', 'BIGINT'],
      ],
      `INSERT INTO problem_models (service, id, model, count, first_seen_ms, last_seen_ms)
       SELECT d.service, d.id, d.model, ${agg('SUM', 'd.count')}, ${agg('MIN', 'd.first_ms')}, ${agg('MAX', 'd.last_ms')}
       FROM (SELECT v.service, ${id} AS id, v.model, v.count, v.first_ms, v.last_ms FROM v) d
       WHERE 1 = 1 ${grouped('d.service, d.id, d.model')}
       ON CONFLICT (service, id, model) DO UPDATE SET count = problem_models.count + excluded.count,
         first_seen_ms = ${min}(problem_models.first_seen_ms, excluded.first_seen_ms),
         last_seen_ms = ${max}(problem_models.last_seen_ms, excluded.last_seen_ms)`,
    );
  // A problem row's values, in the order both problem statements take them.
  const signatureValues: readonly (readonly [string, ColumnType])[] = [
    ['service', 'TEXT'],
    ['id', 'TEXT'],
    ['outcome', 'TEXT'],
    ['tool', 'TEXT'],
    ['canonical', 'TEXT'],
    ['parts', 'TEXT'],
  ];
  const countValues: readonly (readonly [string, ColumnType])[] = [
    ['first_ms', 'BIGINT'],
    ['last_ms', 'BIGINT'],
    ['occurrences', 'BIGINT'],
    ['status_ms', 'BIGINT'],
    ['recorded_ms', 'BIGINT'],
  ];
  return {
    // Its own row when it exists or the service has room, else the service's overflow row: one
    // statement, so no other writer's commit can fall between the two choices (a CASE, so the
    // service's problems are counted only for a problem without its row, and not at all in a
    // service this process found at its cap: `at_cap`, committed.ts). The choice is made once
    // per row, in a materialized `w`: as a subquery it was flattened into the five columns that read
    // it, each running the lookup and the count again (a service at its cap sent every new
    // signature through five counts of its problems).
    problem: new MultiRow(
      [...signatureValues, ['other_canonical', 'TEXT'], ...countValues, ['cap', 'BIGINT'], ['at_cap', 'BIGINT']],
      `, w AS MATERIALIZED (SELECT v.*,
           CASE WHEN EXISTS (SELECT 1 FROM problems p WHERE p.service = v.service AND p.id = v.id) THEN 1
           WHEN v.at_cap = 1 THEN 0
           WHEN (SELECT COUNT(*) FROM problems p WHERE p.service = v.service AND p.id <> '${OTHER_PROBLEM}') < v.cap THEN 1
           ELSE 0 END AS own
         FROM v)
       ${problemColumns}
       SELECT d.service, d.id, ${agg('MIN', 'd.outcome')}, ${agg('MIN', 'd.tool')}, ${agg('MIN', 'd.canonical')},
         ${agg('MIN', 'd.parts')}, ${agg('MIN', 'd.first_ms')}, ${agg('MAX', 'd.last_ms')}, ${agg('SUM', 'd.occurrences')},
         'open', ${agg('MAX', 'd.status_ms')}, ${agg('MAX', 'd.recorded_ms')}
       FROM (SELECT w.service, ${own('id', `'${OTHER_PROBLEM}'`)} AS id, ${own('outcome', `'${OTHER_PROBLEM}'`)} AS outcome,
           ${own('tool', `'${OTHER_PROBLEM}'`)} AS tool, ${own('canonical', 'w.other_canonical')} AS canonical,
           ${own('parts', `'[]'`)} AS parts, w.first_ms, w.last_ms, w.occurrences, w.status_ms, w.recorded_ms
         FROM w) d
       WHERE 1 = 1 ${grouped('d.service, d.id')}
       ${problemConflict}`,
    ),
    // A problem whose own row is known to exist: its values as they are, no target to find (and
    // were it missing after all, the row inserted is its own, complete, with its hours and models).
    ownProblem: new MultiRow(
      [...signatureValues, ...countValues],
      `${problemColumns}
       SELECT v.service, v.id, v.outcome, v.tool, v.canonical, v.parts, v.first_ms, v.last_ms, v.occurrences, 'open',
         v.status_ms, v.recorded_ms
       FROM v WHERE 1 = 1
       ${problemConflict}`,
    ),
    hour: hour(TARGET),
    ownHour: hour('v.id'),
    model: model(TARGET),
    ownModel: model('v.id'),
    // The first and each model's first are kept once; the latest is replaced by a later one.
    latest: example(`DO UPDATE SET time_ms = excluded.time_ms, model = excluded.model, trace_id = excluded.trace_id,
             span_id = excluded.span_id, name = excluded.name, arguments = excluded.arguments, message = excluded.message
           WHERE excluded.time_ms >= problem_examples.time_ms`),
    kept: example('DO NOTHING'),
  };
}

const STATEMENTS = { sqlite: statements('sqlite'), postgres: statements('postgres') };

/** A signature's parts as stored, serialised once per signature (the signature cache keeps them). */
const partsJson = new WeakMap<object, string>();
/** A service's `_other` canonical string. */
const otherCanonical = new Map<string, string>();

function writeDeltas(
  tx: BatchTx,
  sql: (typeof STATEMENTS)['sqlite'],
  deltas: readonly ProblemDelta[],
  opts: WriteOptions,
  recordedMs: number,
  committed: CommittedProblems | undefined,
): void {
  const settled: unknown[] = [];
  const owned: unknown[] = [];
  const hours: unknown[] = [];
  const models: unknown[] = [];
  const ownHours: unknown[] = [];
  const ownModels: unknown[] = [];
  for (const d of deltas) {
    const id = d.signature.hash;
    const s = d.signature;
    const { service } = d;
    let parts = partsJson.get(s);
    if (parts === undefined) partsJson.set(s, (parts = JSON.stringify(s.parts)));
    let other = otherCanonical.get(service);
    if (other === undefined) {
      if (otherCanonical.size >= 10_000) otherCanonical.clear();
      otherCanonical.set(service, (other = JSON.stringify(['tw1', OTHER_PROBLEM, service])));
    }
    if (committed?.owns(service, id)) {
      const statusMs = opts.nowMs ?? d.lastMs;
      owned.push(
        service,
        id,
        s.outcome,
        s.tool,
        s.canonical,
        parts,
        d.firstMs,
        d.lastMs,
        d.occurrences,
        statusMs,
        recordedMs,
      );
      for (let h = 0; h < d.hours.length; h += 2) ownHours.push(service, id, d.hours[h], d.hours[h + 1]);
      for (const m of d.models) ownModels.push(service, id, m.model, m.count, m.firstMs, m.lastMs);
      continue;
    }
    const row = [
      service,
      id,
      s.outcome,
      s.tool,
      s.canonical,
      parts,
      other,
      d.firstMs,
      d.lastMs,
      d.occurrences,
      opts.nowMs ?? d.lastMs,
      recordedMs,
      opts.maxPerService,
      // A service known to be at its cap: its problems' rows are not counted again.
      committed?.full(service, opts.maxPerService) ? 1 : 0,
    ];
    if (committed?.knows(service, id)) settled.push(...row);
    else sql.problem.run(tx, row);
    for (let h = 0; h < d.hours.length; h += 2) hours.push(service, id, d.hours[h], d.hours[h + 1]);
    for (const m of d.models) models.push(service, id, m.model, m.count, m.firstMs, m.lastMs);
  }
  sql.problem.run(tx, settled);
  sql.ownProblem.run(tx, owned);
  sql.hour.run(tx, hours);
  sql.ownHour.run(tx, ownHours);
  sql.model.run(tx, models);
  sql.ownModel.run(tx, ownModels);
  for (const d of deltas) {
    const id = d.signature.hash;
    const { service } = d;
    for (const ex of d.examples)
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
}
