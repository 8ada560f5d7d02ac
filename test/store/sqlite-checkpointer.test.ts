/**
 * WAL checkpoints on a worker thread (store.sqlite_checkpoint: background): the WAL is copied back
 * by the worker's connection, the main connection's own automatic checkpoint waits at a higher mark,
 * nothing is checkpointed while nothing is written, a worker that cannot work hands checkpoints back
 * to the main connection, and closing the store leaves no WAL behind. Real files, real threads.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKSTOP_PAGES, SQLITE_DEFAULT_PAGES, WalCheckpointer } from '../../src/store/sqlite-checkpointer.js';
import pino from 'pino';
import { openStore } from '../../src/store/open.js';
import { SqliteStore } from '../../src/store/sqlite.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-ckpt-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A WAL-mode file with a table, on a connection of the test's own. */
function walDb(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
  return db;
}

/** `n` rows of 2 KiB each, one transaction per 10. */
function write(db: Database.Database, n: number): void {
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  const body = 'x'.repeat(2048);
  for (let i = 0; i < n; i += 10)
    db.transaction(() => {
      for (let j = i; j < Math.min(n, i + 10); j++) insert.run(body);
    })();
}

const until = async (what: () => boolean, ms = 8000): Promise<void> => {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

const autocheckpoint = (db: Database.Database): number => Number(db.pragma('wal_autocheckpoint', { simple: true }));

describe('WalCheckpointer', () => {
  it('copies the WAL back from its own thread, and the main connection waits at the backstop mark', async () => {
    const file = path.join(dir, 'a.db');
    const db = walDb(file);
    const copied: number[] = [];
    const problems: string[] = [];
    const c = new WalCheckpointer({
      path: file,
      synchronous: 'NORMAL',
      setAutocheckpoint: (p) => db.pragma(`wal_autocheckpoint = ${p}`),
      onProblem: (m) => problems.push(m),
      onCheckpoint: (n) => copied.push(n),
      minIntervalMs: 20,
    });
    try {
      expect(autocheckpoint(db)).toBe(BACKSTOP_PAGES);
      write(db, 300);
      const [before] = db.pragma('wal_checkpoint(NOOP)') as { log: number }[];
      expect(before!.log).toBeGreaterThan(100);
      // The worker copied every page the WAL held (the main connection's mark was never reached).
      await until(() => copied.includes(before!.log));
      expect(problems).toEqual([]);
    } finally {
      await c.stop();
      db.close();
    }
  });

  it('reports nothing while the WAL is empty, then checkpoints the next write', async () => {
    const file = path.join(dir, 'b.db');
    const db = walDb(file);
    write(db, 20);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const copied: number[] = [];
    const c = new WalCheckpointer({
      path: file,
      synchronous: 'NORMAL',
      setAutocheckpoint: (p) => db.pragma(`wal_autocheckpoint = ${p}`),
      onProblem: () => {},
      onCheckpoint: (n) => copied.push(n),
      minIntervalMs: 10,
    });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(copied).toEqual([]);
      write(db, 20);
      await until(() => copied.length > 0);
    } finally {
      await c.stop();
      db.close();
    }
  });

  it('hands checkpoints back to the main connection when the worker cannot open the file', async () => {
    const db = walDb(path.join(dir, 'c.db'));
    const marks: number[] = [];
    const problems: string[] = [];
    const c = new WalCheckpointer({
      path: path.join(dir, 'missing', 'c.db'),
      synchronous: 'NORMAL',
      setAutocheckpoint: (p) => {
        marks.push(p);
        db.pragma(`wal_autocheckpoint = ${p}`);
      },
      onProblem: (m) => problems.push(m),
    });
    try {
      await until(() => problems.length > 0);
      expect(problems).toEqual([expect.stringMatching(/^cannot open the database: /)]);
      expect(marks).toEqual([BACKSTOP_PAGES, SQLITE_DEFAULT_PAGES]);
      expect(autocheckpoint(db)).toBe(SQLITE_DEFAULT_PAGES);
    } finally {
      await c.stop();
      db.close();
    }
  });
});

describe('SqliteStore with store.sqlite_checkpoint', () => {
  it('background: the worker checkpoints what the store writes, and close leaves no WAL', async () => {
    const file = path.join(dir, 'store.db');
    let copied = 0;
    const store = new SqliteStore({
      path: file,
      synchronous: 'NORMAL',
      checkpoint: 'background',
      onCheckpoint: (n) => {
        copied += n;
      },
    });
    expect(autocheckpoint(store.db)).toBe(BACKSTOP_PAGES);
    store.db.exec('CREATE TABLE extra (body TEXT)');
    const insert = store.db.prepare('INSERT INTO extra (body) VALUES (?)');
    for (let i = 0; i < 200; i++) insert.run('y'.repeat(3000));
    await until(() => copied >= 200);
    // Past the worker's first look, a checkpoint has nothing left: it copied it all.
    const [r] = store.db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    expect(r!.checkpointed).toBe(r!.log);
    await store.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    const again = new Database(file, { readonly: true });
    expect((again.prepare('SELECT count(*) AS n FROM extra').get() as { n: number }).n).toBe(200);
    again.close();
  });

  it('inline (the default of a store opened directly): SQLite checkpoints on the committing connection', async () => {
    const store = new SqliteStore({ path: path.join(dir, 'inline.db'), synchronous: 'NORMAL' });
    expect(autocheckpoint(store.db)).toBe(SQLITE_DEFAULT_PAGES);
    await store.close();
  });

  it('openStore passes the setting on', async () => {
    const log = pino({ level: 'silent' });
    for (const [setting, mark] of [
      ['background', BACKSTOP_PAGES],
      ['inline', SQLITE_DEFAULT_PAGES],
    ] as const) {
      const store = await openStore(
        {
          database: { kind: 'sqlite', path: path.join(dir, `${setting}.db`) },
          store: { sqliteSynchronous: 'NORMAL', sqliteBusyTimeoutMs: 100, sqliteCheckpoint: setting },
        },
        log,
      );
      expect(autocheckpoint((store as SqliteStore).db)).toBe(mark);
      await store.close();
    }
  });
});
