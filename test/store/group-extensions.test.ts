/**
 * A group commit's extensions (src/store/group-extensions.ts): each merger writes its rows of the
 * whole group once, in batch order, and a merged extension then writes only its rest.
 */
import { describe, expect, it } from 'vitest';
import { runExtensions, writeMergedRows } from '../../src/store/group-extensions.js';
import type { BatchExtension, BatchTx, RowMerger } from '../../src/store/sql.js';

function recording() {
  const log: string[] = [];
  const tx: BatchTx = { run: (sql) => void log.push(sql) };
  return { log, tx };
}

function mergeable(merger: RowMerger<string>, rows: string): BatchExtension {
  const ext: BatchExtension = (tx) => {
    tx.run(`rows ${rows}`);
    tx.run(`rest ${rows}`);
  };
  ext.mergeable = { merger, rows, rest: (tx) => tx.run(`rest ${rows}`) };
  return ext;
}

describe('group extensions', () => {
  const merger = (name: string): RowMerger<string> => ({ write: (tx, rows) => tx.run(`${name} ${rows.join('+')}`) });

  it('writes each merger once for the group, its rows in batch order', () => {
    const a = merger('A');
    const b = merger('B');
    const plain: BatchExtension = (tx) => tx.run('plain');
    const { log, tx } = recording();
    writeMergedRows(tx, [
      { extensions: [mergeable(a, '1'), plain] },
      { extensions: [mergeable(b, '2'), mergeable(a, '3')] },
    ]);
    expect(log).toEqual(['A 1+3', 'B 2']);
  });

  it('writes nothing for a group without mergeable rows', () => {
    const { log, tx } = recording();
    writeMergedRows(tx, [{ extensions: [(t) => t.run('plain')] }, { extensions: [] }]);
    expect(log).toEqual([]);
  });

  it('runs a merged extension’s rest, an unmerged one whole, and others as they are', () => {
    const a = merger('A');
    const exts = [mergeable(a, '1'), (t: BatchTx) => t.run('plain')];
    const merged = recording();
    runExtensions(merged.tx, exts, true);
    expect(merged.log).toEqual(['rest 1', 'plain']);
    const alone = recording();
    runExtensions(alone.tx, exts, false);
    expect(alone.log).toEqual(['rows 1', 'rest 1', 'plain']);
  });
});
