/**
 * What a batch writes of definition versions and change events, once for both engines inside the
 * ingest batch's transaction (write-only statements, so the same extension runs in SQLite's
 * synchronous transaction and PostgreSQL's asynchronous one):
 * - versions are upserted: first/last seen widened, calls added — a resent span adds no call,
 *   because calls come from the pipeline's deduplicated count, and seeing a time twice changes nothing;
 * - each transition moves the stored state (only when it holds another value and is no newer than the
 *   sighting, so a late span of the old value is no change back), and the state's trigger (migration
 *   013) writes the event from the old and new rows, so a batch's sightings are one statement. The event's unique
 *   key is (service, kind, tool, from, from's since, to): a replica that raced another through the
 *   same switch finds the state moved already, or at worst hits that key, and writes nothing;
 * - with the process's memo of committed state (committed.ts), a sighting of the value the state
 *   already holds — most of them — is not written (it would move nothing), nor its tool set row;
 * - a version's definition text is its own row (migration 018), written only when the process does
 *   not know it stored (stored-definitions.ts): the counters' row, rewritten by every batch, stays small.
 */
import { rowsStatement, type BatchExtension, type BatchTx, type RowMerger, type Sql } from '../store/sql.js';
import type { CommittedState } from './committed.js';
import type { StoredDefinitions } from './stored-definitions.js';
import type { BatchObservation, Sighting, ToolSetSeen, VersionCount, VersionSeen } from './observe.js';
import { firstSightings } from './sightings.js';
import { compareText } from '../util/compare-text.js';

/** Rows per multi-row statement (7 values each at most: far below either engine's parameter limit). */
const ROWS_PER_STATEMENT = 64;

/**
 * Each table's rows of a batch go in multi-row statements (one per table for a usual batch). A
 * statement never holds one key twice — PostgreSQL refuses an upsert that would touch a row twice —
 * so repeated keys are summed first (version counts) or start the next statement (a key's several
 * transitions, which must move the state one after another). Which sightings are written is decided
 * when the statements run (inside the transaction, in commit order), from `memo` when given.
 */
export function changesExtension(
  dialect: Sql['dialect'],
  obs: BatchObservation,
  memo?: CommittedState,
  stored?: StoredDefinitions,
): BatchExtension | undefined {
  if (obs.versions.length === 0 && obs.segments.length === 0 && obs.counts.length === 0) return undefined;
  const sql = STATEMENTS[dialect];
  // One lock order for concurrent writers: rows sorted by key (in place: the arrays are the batch's own).
  const versions = obs.versions.length > 1 ? obs.versions.sort(byVersionKey) : obs.versions;
  const counts = foldedCounts(obs.counts);
  /** The last run's token and the sightings it wrote (a group retried batch by batch runs a batch twice). */
  let token = 0;
  let written: Sighting[] = [];
  /** The sightings and tool sets: what is never merged across a group (a key's transitions move the state in order). */
  const rest = (tx: BatchTx) => {
    token = memo ? memo.beginRun() : 0;
    written = [];
    /** Tool sets left out: their rows are the current state's, stored already. */
    let unchangedSets: { service: string; value: string }[] | undefined;
    const write = (s: Sighting) => {
      memo?.dirty(s, token);
      written.push(s);
    };
    // A key sighted twice (a transition inside the batch) is written whole.
    if (obs.transitions) for (const s of obs.transitions) write(s);
    else
      for (const seg of obs.segments) {
        // Most often the state holds every value a run sights: left out whole, no sighting made.
        if (memo?.unchangedSegment(seg)) {
          if (seg.kind === 'tool_set') (unchangedSets ??= []).push(seg);
          continue;
        }
        for (const s of firstSightings(seg)) {
          if (memo?.unchanged(s)) {
            if (s.kind === 'tool_set') (unchangedSets ??= []).push(s);
          } else write(s);
        }
      }
    writeToolSets(tx, sql, obs.toolSets, unchangedSets);
    writeSightings(tx, sql, written);
  };
  const rows: CountRows = { versions, counts, definitions: stored ? stored.toWrite(versions) : versions };
  const ext: BatchExtension = (tx) => {
    writeCountRows(tx, sql, rows);
    rest(tx);
  };
  // Set by one unconditional store: the same closure made under `if (memo)` cost Node 20 some 14 µs
  // per batch (bench/changes-cost.js), more than the rest of the changes work in JavaScript.
  ext.committed = memo || stored ? () => learn(memo, written, token, stored, versions) : undefined;
  ext.mergeable = { merger: MERGERS[dialect], rows, rest };
  return ext;
}

/** What a committed batch teaches the memos: the sightings it wrote, the versions it stored. */
function learn(
  memo: CommittedState | undefined,
  written: Sighting[],
  token: number,
  stored: StoredDefinitions | undefined,
  versions: readonly VersionSeen[],
): void {
  memo?.committed(written, token);
  stored?.committed(versions);
}

/** What a version's row stores (a batch's VersionSeen, or a group's sum of them). */
type VersionRow = Omit<VersionSeen, 'groups'>;

/** A batch's version and per-minute count rows: upserts that add calls and widen times, mergeable across a group. */
interface CountRows {
  /** Sorted by key, one row per key. */
  versions: readonly VersionRow[];
  /** Sorted by key, one row per key. */
  counts: readonly VersionCount[];
  /** The versions whose definition text is written (inserted where absent), sorted by key. */
  definitions: readonly VersionRow[];
}

function writeCountRows(tx: BatchTx, sql: Statements, rows: CountRows): void {
  const { versions, counts, definitions } = rows;
  for (let i = 0; i < versions.length; i += ROWS_PER_STATEMENT) {
    const part = versions.slice(i, i + ROWS_PER_STATEMENT);
    const params: unknown[] = [];
    for (const v of part) params.push(v.service, v.tool, v.version, v.firstMs, v.lastMs, v.calls);
    tx.run(sql.versions(part.length), params);
  }
  // After the counters: on PostgreSQL a retention run that removes a version's row (and then its
  // definition) holds the row's lock until it commits, so this batch's upsert waits for it and its
  // definition is inserted afresh below, never found about to go.
  for (let i = 0; i < definitions.length; i += ROWS_PER_STATEMENT) {
    const part = definitions.slice(i, i + ROWS_PER_STATEMENT);
    const params: unknown[] = [];
    for (const v of part) params.push(v.service, v.tool, v.version, v.definition);
    tx.run(sql.definitions(part.length), params);
  }
  for (let i = 0; i < counts.length; i += ROWS_PER_STATEMENT) {
    const part = counts.slice(i, i + ROWS_PER_STATEMENT);
    const params: unknown[] = [];
    for (const c of part) params.push(c.minute, c.service, c.tool, c.version, c.provider, c.outcome, c.count);
    tx.run(sql.counts(part.length), params);
  }
}

/**
 * A group's count rows summed per key (new rows: each batch's own stay as they were, for a retry of
 * the batch alone after the group failed): the upserts add calls and counts and widen first/last
 * seen, so one summed row stores what the batches' rows would have, in any order.
 */
function merger(sql: Statements): RowMerger<CountRows> {
  return {
    write(tx, groups) {
      writeCountRows(tx, sql, {
        versions: summedVersions(groups),
        counts: summedCounts(groups),
        definitions: unionDefinitions(groups),
      });
    },
  };
}

type Statements = (typeof STATEMENTS)['sqlite'];

function writeToolSets(
  tx: BatchTx,
  sql: Statements,
  all: readonly ToolSetSeen[],
  unchanged: readonly { service: string; value: string }[] | undefined,
): void {
  const sets = unchanged
    ? all.filter((t) => !unchanged.some((s) => s.service === t.service && s.value === t.version))
    : all;
  const sorted = sets.length > 1 ? [...sets].sort(byToolSetKey) : sets;
  for (let i = 0; i < sorted.length; i += ROWS_PER_STATEMENT) {
    const part = sorted.slice(i, i + ROWS_PER_STATEMENT);
    const params: unknown[] = [];
    for (const t of part) params.push(t.service, t.version, JSON.stringify(t.names));
    tx.run(sql.toolSets(part.length), params);
  }
}

/**
 * The event is written by the trigger on change_state (migration 013) when the state moves.
 * Sightings in order; a key seen again (A → B → A in one batch) starts the next statement.
 */
function writeSightings(tx: BatchTx, sql: Statements, sightings: readonly Sighting[]): void {
  let params: unknown[] = [];
  let keys = new Set<string>();
  const flush = () => {
    if (keys.size > 0) tx.run(sql.sightings(keys.size), params);
    params = [];
    keys = new Set();
  };
  for (const s of sightings) {
    const key = `${s.service}\u0000${s.kind}\u0000${s.key}`;
    if (keys.has(key) || keys.size === ROWS_PER_STATEMENT) flush();
    keys.add(key);
    params.push(s.service, s.kind, s.key, s.value, s.timeMs);
  }
  flush();
}

/** The statements, per engine, by row count. */
const STATEMENTS = {
  sqlite: statements('MIN', 'MAX'),
  postgres: statements('LEAST', 'GREATEST'),
};

/** One merger per engine: the same object for every batch's extension, so a group's are summed together. */
const MERGERS = { sqlite: merger(STATEMENTS.sqlite), postgres: merger(STATEMENTS.postgres) };

function statements(least: string, greatest: string) {
  return {
    versions: rowsStatement(
      6,
      (values) => `INSERT INTO tool_versions (service, tool, version, first_seen, last_seen, calls)
         VALUES ${values}
         ON CONFLICT (service, tool, version) DO UPDATE SET
           first_seen = ${least}(tool_versions.first_seen, excluded.first_seen),
           last_seen = ${greatest}(tool_versions.last_seen, excluded.last_seen),
           calls = tool_versions.calls + excluded.calls`,
    ),
    definitions: rowsStatement(
      4,
      (values) => `INSERT INTO tool_definitions (service, tool, version, definition) VALUES ${values}
         ON CONFLICT (service, tool, version) DO NOTHING`,
    ),
    counts: rowsStatement(
      7,
      (values) =>
        `INSERT INTO version_minutes (minute, service, tool, version, provider, outcome, count) VALUES ${values}
         ON CONFLICT (minute, service, tool, version, provider, outcome) DO UPDATE SET count = version_minutes.count + excluded.count`,
    ),
    toolSets: rowsStatement(
      3,
      (values) =>
        `INSERT INTO service_tool_sets (service, version, names) VALUES ${values} ON CONFLICT (service, version) DO NOTHING`,
    ),
    sightings: rowsStatement(
      5,
      (values) => `INSERT INTO change_state (service, kind, key, value, since) VALUES ${values}
         ON CONFLICT (service, kind, key) DO UPDATE SET value = excluded.value, since = excluded.since
         WHERE change_state.value <> excluded.value AND change_state.since <= excluded.since`,
    ),
  };
}

const byVersionKey = (a: VersionRow, b: VersionRow) =>
  compareText(a.service, b.service) || compareText(a.tool, b.tool) || compareText(a.version, b.version);
const byToolSetKey = (a: ToolSetSeen, b: ToolSetSeen) =>
  compareText(a.service, b.service) || compareText(a.version, b.version);
const byCountKey = (a: VersionCount, b: VersionCount) =>
  a.minute - b.minute ||
  compareText(a.service, b.service) ||
  compareText(a.tool, b.tool) ||
  compareText(a.version, b.version) ||
  compareText(a.provider, b.provider) ||
  compareText(a.outcome, b.outcome);

/**
 * A batch's own counts sorted in place by key, a key's rows summed into one new row: two long tool
 * names clipped to the same text count under one key.
 */
function foldedCounts(counts: VersionCount[]): readonly VersionCount[] {
  if (counts.length <= 1) return counts;
  const out: VersionCount[] = [];
  for (const c of counts.sort(byCountKey)) {
    const last = out[out.length - 1];
    if (last === undefined || byCountKey(last, c) !== 0) out.push(c);
    else out[out.length - 1] = { ...last, count: last.count + c.count };
  }
  return out;
}

/*
 * A group's rows are summed per key into new rows — each batch's own stay as they were, for a retry
 * of a batch alone after its group failed — found in a map by a key the rows carry (a group's batches
 * mostly repeat the same few keys), and only the sums sorted (one lock order for concurrent writers).
 */

/** A group's versions, a key's rows as one: calls added, first and last seen widened. */
function summedVersions(groups: readonly CountRows[]): VersionRow[] {
  const sums = new Map<string, VersionRow>();
  for (const g of groups)
    for (const v of g.versions) {
      const sum = sums.get(v.key);
      if (sum === undefined) sums.set(v.key, versionRow(v));
      else {
        if (v.firstMs < sum.firstMs) sum.firstMs = v.firstMs;
        if (v.lastMs > sum.lastMs) sum.lastMs = v.lastMs;
        sum.calls += v.calls;
      }
    }
  return [...sums.values()].sort(byVersionKey);
}

/** A group's definitions to write, each key once (any batch's row of it: one key, one text). */
function unionDefinitions(groups: readonly CountRows[]): VersionRow[] {
  const byKey = new Map<string, VersionRow>();
  for (const g of groups) for (const v of g.definitions) if (!byKey.has(v.key)) byKey.set(v.key, v);
  return [...byKey.values()].sort(byVersionKey);
}

/** A group's counts, a key's rows as one: found by their version's row key, minute and outcome, then provider. */
function summedCounts(groups: readonly CountRows[]): VersionCount[] {
  const sums = new Map<string, Map<number, VersionCount[]>>();
  const out: VersionCount[] = [];
  for (const g of groups)
    for (const c of g.counts) {
      let ofVersion = sums.get(c.versionKey);
      if (!ofVersion) sums.set(c.versionKey, (ofVersion = new Map()));
      let ofSlot = ofVersion.get(c.slot);
      if (!ofSlot) ofVersion.set(c.slot, (ofSlot = []));
      // One row per provider that served the version: a short list.
      const sum = ofSlot.find((r) => r.provider === c.provider);
      if (sum) sum.count += c.count;
      else {
        const fresh = { ...c };
        ofSlot.push(fresh);
        out.push(fresh);
      }
    }
  return out.sort(byCountKey);
}

const versionRow = (v: VersionRow): VersionRow => ({
  key: v.key,
  service: v.service,
  tool: v.tool,
  version: v.version,
  definition: v.definition,
  firstMs: v.firstMs,
  lastMs: v.lastMs,
  calls: v.calls,
});
