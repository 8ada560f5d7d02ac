/**
 * Issue 17, finding 17: starting on a SQLite database toolwatch cannot write says which file and why
 * in one line and exits 2, as a configuration problem does — not an SqliteError stack and exit 1.
 * A real process on a real file made read-only (immutable when run as root, who ignores modes).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite.js';
import { buildMain, startMain, type BuiltMain } from '../helpers/main-process.js';

const isRoot = process.getuid?.() === 0;

/** Makes the file read-only for this user; returns what undoes it. */
function makeReadOnly(file: string): () => void {
  if (!isRoot) {
    chmodSync(file, 0o444);
    return () => chmodSync(file, 0o644);
  }
  const res = spawnSync('chattr', ['+i', file], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`chattr +i failed: ${res.stderr}`);
  return () => void spawnSync('chattr', ['-i', file]);
}

describe('a read-only SQLite database at start', () => {
  let built: BuiltMain;
  let dir: string;
  let undo = () => {};
  beforeAll(async () => {
    built = await buildMain();
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-ro-'));
  });
  afterAll(() => {
    undo();
    built.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 2 naming the file and why, without a stack trace', async () => {
    const db = path.join(dir, 'toolwatch.db');
    // A real database first (migrated, closed cleanly: no -wal or -shm left), then made read-only.
    new SqliteStore({ path: db, synchronous: 'NORMAL' }).close();
    rmSync(`${db}-wal`, { force: true });
    rmSync(`${db}-shm`, { force: true });
    writeFileSync(path.join(dir, 'toolwatch.yaml'), `database_url: ${JSON.stringify(db)}\n`);
    undo = makeReadOnly(db);
    const tw = startMain(built.file, { cwd: dir, args: ['--config', 'toolwatch.yaml'], env: { LOG_LEVEL: 'warn' } });
    const code = await tw.exited;
    const out = tw.output();
    expect(code, out).toBe(2);
    expect(out).toContain(`toolwatch: the SQLite database ${db} is read-only to toolwatch`);
    expect(out).toMatch(/SQLITE_READONLY/);
    expect(out).not.toMatch(/\n\s+at /);
  });
});
