/**
 * What this process's committed problem writes hold (src/problems/committed.ts), and the services
 * it found at their cap: a problem whose own row does not exist after its write went to `_other`, so
 * its service held max_per_service problems then and holds them for good — the next problems of that
 * service are not counted again, and still go where counting would have sent them.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CommittedProblems } from '../../src/problems/committed.js';
import type { ProblemDelta } from '../../src/problems/delta.js';
import { OTHER_PROBLEM } from '../../src/problems/store.js';
import { problemExtension } from '../../src/problems/write.js';
import { migrateSqlite } from '../../src/store/sqlite.js';
import { SqliteSql } from '../../src/store/sqlite-sql.js';

const settled = () => new Promise((resolve) => setImmediate(resolve));

function delta(service: string, id: string): ProblemDelta {
  return {
    service,
    signature: { hash: id, outcome: 'UnknownName', tool: '_unknown', canonical: `c-${id}`, parts: [] },
    firstMs: 1_000,
    lastMs: 1_000,
    occurrences: 1,
    hours: [0, 1],
    models: [],
    examples: [],
  } as unknown as ProblemDelta;
}

describe('services found at their cap', () => {
  it('are known full at the cap their write had, and at any smaller one; a problem with its row says nothing', async () => {
    const rows = new Map([['a\u0000own', true]]);
    const memo = new CommittedProblems(async (service, id) => rows.get(`${service}\u0000${id}`) ?? false);
    memo.wrote('a', 'own', 10);
    memo.wrote('b', 'overflow', 10);
    expect(memo.full('b', 10)).toBe(false); // the answer is awaited
    await settled();
    expect(memo.owns('a', 'own')).toBe(true);
    expect(memo.full('a', 10)).toBe(false);
    expect(memo.full('b', 10)).toBe(true);
    expect(memo.full('b', 5)).toBe(true);
    // A larger cap may leave room: counted again.
    expect(memo.full('b', 11)).toBe(false);
  });

  it('start over with the rest of the memo once it is past its size', async () => {
    const memo = new CommittedProblems(async () => false, 3);
    memo.wrote('a', 'x', 10);
    await settled();
    expect(memo.full('a', 10)).toBe(true);
    memo.wrote('b', 'y', 10);
    memo.wrote('c', 'z', 10);
    expect(memo.full('a', 10)).toBe(false);
  });

  it('send a new problem to _other without counting, and a problem with its own row still there', async () => {
    const db = new Database(':memory:');
    migrateSqlite(db);
    const sql = new SqliteSql(db);
    const memo = new CommittedProblems((service, id) =>
      Promise.resolve(db.prepare('SELECT 1 FROM problems WHERE service = ? AND id = ?').all(service, id).length > 0),
    );
    const write = (ds: ProblemDelta[]) => {
      const ext = problemExtension(ds, { dialect: 'sqlite', maxPerService: 2 }, memo);
      db.exec('BEGIN');
      ext(sql.batchTx);
      db.exec('COMMIT');
      ext.committed?.();
    };
    write([delta('s', 'p1')]);
    write([delta('s', 'p2')]);
    write([delta('s', 'p3')]); // past the cap: to _other
    await settled();
    expect(memo.full('s', 2)).toBe(true);
    write([delta('s', 'p1'), delta('s', 'p4'), delta('s', 'p3')]);
    const occurrences = Object.fromEntries(
      (
        db.prepare("SELECT id, occurrences FROM problems WHERE service = 's'").all() as {
          id: string;
          occurrences: number;
        }[]
      ).map((r) => [r.id, r.occurrences]),
    );
    expect(occurrences).toEqual({ p1: 2, p2: 1, [OTHER_PROBLEM]: 3 });
    // A problem with its own row, not known to have it, in a service known full: still its own row.
    expect(memo.owns('s', 'p2')).toBe(true);
    const fresh = new CommittedProblems(async (service, id) => id === 'p2' && service === 's');
    const ext = problemExtension([delta('s', 'p5')], { dialect: 'sqlite', maxPerService: 2 }, fresh);
    db.exec('BEGIN');
    ext(sql.batchTx);
    db.exec('COMMIT');
    ext.committed?.();
    await settled();
    expect(fresh.full('s', 2)).toBe(true);
    const again = problemExtension([delta('s', 'p2')], { dialect: 'sqlite', maxPerService: 2 }, fresh);
    db.exec('BEGIN');
    again(sql.batchTx);
    db.exec('COMMIT');
    const p2 = db.prepare("SELECT occurrences FROM problems WHERE service = 's' AND id = 'p2'").get() as {
      occurrences: number;
    };
    expect(p2.occurrences).toBe(2);
    db.close();
  });
});
