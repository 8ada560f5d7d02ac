/**
 * The SQL port the store exposes to features (alerts, judge, Langfuse state, the delivery outbox):
 * every feature writes its SQL once for both databases. SQL uses `?` placeholders (rewritten to
 * $n for PostgreSQL) and only syntax both accept (INSERT … ON CONFLICT, RETURNING, CAST, CASE).
 * PostgreSQL returns BIGINT and COUNT as strings: read numbers through the mappers in rows.ts.
 */

import { likePattern, sqliteGlob } from '../util/glob.js';

export type Row = Record<string, unknown>;

export interface Sql {
  readonly dialect: 'sqlite' | 'postgres';
  all<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Returns the number of rows changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * One transaction. On SQLite the body must only await this port (whose promises resolve at once),
   * so it finishes before the store's group commit — a macrotask — can start its own transaction;
   * transactions of one process run one after another.
   */
  tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
}

/**
 * What a batch extension may do inside the ingest batch's own transaction: write statements, run in
 * order, committed (or not) together with the batch's counts. Write-only, so one extension runs
 * unchanged inside SQLite's synchronous transaction and PostgreSQL's asynchronous one.
 */
export interface BatchTx {
  run(sql: string, params?: readonly unknown[]): void;
}

/**
 * Rows a feature adds to a batch's transaction without the store knowing the feature. `committed`,
 * when set, is called once the transaction that ran it committed (through the group commit; never
 * after a failed or doubtful one), so the feature may learn what the store now holds.
 */
export type BatchExtension = ((tx: BatchTx) => void) & { committed?: () => void; mergeable?: MergeableRows };

/**
 * The part of an extension's rows that a store committing a group of batches may write once for the
 * group, summed with the other batches' rows of the same `merger` (both engines' group commit,
 * group-extensions.ts): upserts that only add counts or widen a range commute with everything else
 * the group writes, so one summed statement stores exactly what each batch's own would, for a
 * fraction of the rows. A store that does not merge runs the extension itself, which writes them all.
 */
export interface MergeableRows<T = unknown> {
  /** One per feature (and engine): what sums and writes the group's rows. */
  readonly merger: RowMerger<T>;
  readonly rows: T;
  /** What the extension writes besides `rows`: run in its place once `rows` went with the group's. */
  rest(tx: BatchTx): void;
}

export interface RowMerger<T> {
  /** Writes the rows of a group's batches (two or more) summed per row key. */
  write(tx: BatchTx, rows: readonly T[]): void;
}

/** `?` → `$1, $2 …` (our SQL never has a `?` inside a string literal). */
export function toPg(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** ORDER BY text as bytes on both engines (SQLite's default; PostgreSQL's depends on the cluster's locale). */
export function byteOrder(sql: Pick<Sql, 'dialect'>, column: string): string {
  return sql.dialect === 'postgres' ? `${column} COLLATE "C"` : column;
}

/** `(?, ?, …)` for one row of n values, repeated for rows: the VALUES list of a multi-row INSERT. */
export function valuesList(rows: number, columns: number): string {
  const row = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
  return Array.from({ length: rows }, () => row).join(', ');
}

/**
 * The text of a multi-row statement for each row count, built once per count: the statement cache
 * (SQLite's prepared statements) then finds it by the same string instead of a new one per batch.
 * `build` gets the VALUES list (valuesList) of that many rows of `columns` values.
 */
export function rowsStatement(columns: number, build: (values: string) => string): (rows: number) => string {
  const byRows: string[] = [];
  return (rows) => (byRows[rows] ??= build(valuesList(rows, columns)));
}

/**
 * Rows of the services a reader may see (src/util/service-view.ts): `column` matches one of the globs, on
 * SQLite by GLOB and on PostgreSQL by LIKE, both case-sensitive. `param` adds a value and returns its
 * placeholder. No globs: no rows.
 */
export function servicesMatch(
  dialect: Sql['dialect'],
  column: string,
  globs: readonly string[],
  param: (value: string) => string,
): string {
  if (globs.length === 0) return '1 = 0';
  const one = (g: string) =>
    dialect === 'postgres'
      ? `${column} LIKE ${param(likePattern(g))} ESCAPE '\\'`
      : `${column} GLOB ${param(sqliteGlob(g))}`;
  return `(${globs.map(one).join(' OR ')})`;
}
