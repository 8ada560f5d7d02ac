/**
 * Rows of one kind written as a few multi-row statements instead of one statement each: a statement
 * costs its call into the driver, its binding and its step whatever it carries, and the problem
 * tables take a handful of small rows per table per batch.
 *
 * The rows are a `WITH v (…) AS (VALUES …)` list, typed by a CAST per value (PostgreSQL's literals
 * are untyped), which the statement's body reads as `v`. A batch's rows go in chunks of a power of
 * two (at most MAX_ROWS), so each kind has at most six statement texts: the engines' statement
 * caches stay small, and SQLite prepares each text once.
 */
import type { BatchTx } from '../store/sql.js';

const MAX_ROWS = 32;

export type ColumnType = 'TEXT' | 'BIGINT';

export class MultiRow {
  private readonly texts = new Map<number, string>();
  private readonly row: string;
  private readonly names: string;
  /** Values per row. */
  readonly width: number;

  /** `body`: the statement after the WITH clause (more of the clause, `, name AS (…)`, may come first), reading the rows from `v`. */
  constructor(
    columns: readonly (readonly [name: string, type: ColumnType])[],
    private readonly body: string,
  ) {
    this.names = columns.map(([name]) => name).join(', ');
    this.row = `(${columns.map(([, type]) => `CAST(? AS ${type})`).join(', ')})`;
    this.width = columns.length;
  }

  /** The statement for `n` rows. */
  text(n: number): string {
    let t = this.texts.get(n);
    if (!t) {
      t = `WITH v (${this.names}) AS (VALUES ${Array.from({ length: n }, () => this.row).join(', ')})\n${this.body}`;
      this.texts.set(n, t);
    }
    return t;
  }

  /** Runs `params` (rows of `width` values, one after the other) in chunks of at most MAX_ROWS, in order. */
  run(tx: BatchTx, params: readonly unknown[]): void {
    const rows = params.length / this.width;
    let at = 0;
    while (at < rows) {
      const left = Math.min(rows - at, MAX_ROWS);
      let n = 1;
      while (n * 2 <= left) n *= 2;
      tx.run(this.text(n), at === 0 && n === rows ? params : params.slice(at * this.width, (at + n) * this.width));
      at += n;
    }
  }
}
