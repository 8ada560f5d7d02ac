/**
 * The open-addressing index the dedupe memory (dedupe-tables.ts) and the log-record join
 * (log-join.ts) find their slots through: `ix` holds slot + 1 (0 is empty), each slot's home is the
 * low word of its 64-bit hash in `lo` masked to the index size (a power of two), linear probing.
 * Deletion shifts the rest of the run back instead of leaving tombstones, so a lookup never walks
 * past entries that are gone.
 */

/** Enters slot `s` (whose hash is already in `lo`). */
export function insertSlot(ix: Int32Array, lo: Int32Array, s: number): void {
  const m = ix.length - 1;
  let i = lo[s]! & m;
  while (ix[i] !== 0) i = (i + 1) & m;
  ix[i] = s + 1;
}

/** Removes slot `s`, which must be in the index. */
export function removeSlot(ix: Int32Array, lo: Int32Array, s: number): void {
  const m = ix.length - 1;
  let i = lo[s]! & m;
  while (ix[i] !== s + 1) i = (i + 1) & m;
  ix[i] = 0;
  // Backward shift: move up each later entry of the run whose home is not in (i, j].
  for (let j = (i + 1) & m; ix[j] !== 0; j = (j + 1) & m) {
    const h = lo[ix[j]! - 1]! & m;
    const inRange = i <= j ? h > i && h <= j : h > i || h <= j;
    if (inRange) continue;
    ix[i] = ix[j]!;
    ix[j] = 0;
    i = j;
  }
}
