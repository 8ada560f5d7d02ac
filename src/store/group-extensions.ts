/**
 * A group commit's batch extensions: the rows each one marks mergeable (sql.ts MergeableRows) are
 * written once for the group, summed per feature (its merger), and each extension then writes only
 * the rest. A group of batches from the same few services upserts the same definition versions and
 * minutes batch after batch; summed, a group of N batches costs about one batch's upserts (each is
 * microseconds of SQLite work per row). The counts stay exact: the merged upserts only add counts
 * and widen ranges, which commute with every other statement of the group.
 */
import type { BatchExtension, BatchTx, MergeableRows } from './sql.js';

/** Each merger's rows of the group, summed and written: before the batches' own statements (runExtensions with merged). */
export function writeMergedRows(tx: BatchTx, batches: readonly { extensions: readonly BatchExtension[] }[]): void {
  let byMerger: Map<MergeableRows['merger'], unknown[]> | undefined;
  for (const b of batches)
    for (const x of b.extensions) {
      const m = x.mergeable;
      if (!m) continue;
      byMerger ??= new Map();
      const rows = byMerger.get(m.merger);
      if (rows) rows.push(m.rows);
      else byMerger.set(m.merger, [m.rows]);
    }
  if (byMerger) for (const [merger, rows] of byMerger) merger.write(tx, rows);
}

/** A batch's extensions; `merged`: their mergeable rows went with the group's (writeMergedRows). */
export function runExtensions(tx: BatchTx, extensions: readonly BatchExtension[], merged: boolean): void {
  for (const x of extensions) {
    if (merged && x.mergeable) x.mergeable.rest(tx);
    else x(tx);
  }
}
