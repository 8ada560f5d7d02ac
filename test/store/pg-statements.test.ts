/**
 * The statements of a PostgreSQL group commit go in one round trip, as one extended-protocol
 * pipeline with recurring texts prepared once per connection (src/store/pg-statements.ts): every
 * value must land exactly as a parametrised statement stores it, the order must hold, the first
 * error must still fail the whole batch, and a prepared statement must survive the errors around it
 * (its Parse answered or not).
 */
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres.js';
import type { BatchExtension, WriteBatch } from '../../src/store/store.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';
import { callsBatch, type StoreBeside, storeBeside } from '../helpers/pg-store.js';

/** Values of every kind the features bind, the awkward ones included. */
const VALUES: { name: string; t: string; i: number | null; f: number | null; b: boolean | null }[] = [
  { name: 'plain', t: 'search_kb', i: 1, f: 0.5, b: true },
  { name: 'quotes', t: `it's "quoted" ''twice''`, i: -7, f: -1e-9, b: false },
  { name: 'backslashes', t: 'C:\\temp\\new \\x41 \\\\ end\\', i: 0, f: 1e21, b: null },
  { name: 'unicode', t: 'São Paulo — 東京 🚀 \u00e9\u0301', i: Number.MAX_SAFE_INTEGER, f: Math.PI, b: true },
  { name: 'sql-looking', t: "'); DROP TABLE rows; --", i: 42, f: 2.5, b: false },
  { name: 'dollar and newline', t: '$1 $$ body $$\n-- not a comment\r\n', i: 3, f: null, b: null },
  { name: 'empty', t: '', i: null, f: 0, b: true },
  { name: 'nulls', t: 'x', i: null, f: null, b: null },
];

const INSERT = 'INSERT INTO rows (name, t, i, f, b) VALUES (?, ?, ?, ?, ?)';

function batchWith(statements: [string, unknown[]][]): WriteBatch {
  const b = callsBatch(1);
  const ext: BatchExtension = (tx) => {
    for (const [sql, params] of statements) tx.run(sql, params);
  };
  b.extensions.push(ext);
  return b;
}

describe.skipIf(pgServer().skip)('PostgreSQL: the features statements of a group commit', () => {
  let db: StoreBeside;
  let store: PostgresStore;
  let admin: pg.Client;

  beforeAll(async () => {
    db = await storeBeside();
    ({ store, client: admin } = db);
    await admin.query(
      'CREATE TABLE rows (id SERIAL PRIMARY KEY, name TEXT, t TEXT, i BIGINT, f DOUBLE PRECISION, b BOOLEAN)',
    );
    await admin.query('CREATE TABLE twin (LIKE rows INCLUDING ALL)');
  });

  beforeEach(async () => {
    await admin.query('TRUNCATE rows, twin');
  });

  afterAll(async () => {
    await db?.close();
  });

  it('store every value exactly as a parametrised statement does, in one round trip', async () => {
    const calls: string[] = [];
    // Count the round trips by wrapping query for the duration of one write.
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string };
      calls.push(typeof first === 'string' ? first : (first?.text ?? ''));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      await store.write(batchWith(VALUES.map((v) => [INSERT, [v.name, v.t, v.i, v.f, v.b]])));
    } finally {
      pg.Client.prototype.query = query;
    }
    for (const v of VALUES)
      await admin.query('INSERT INTO twin (name, t, i, f, b) VALUES ($1, $2, $3, $4, $5)', [
        v.name,
        v.t,
        v.i,
        v.f,
        v.b,
      ]);
    const cols = 'name, t, i, f, b';
    const got = await admin.query(`SELECT ${cols} FROM rows ORDER BY id`);
    const want = await admin.query(`SELECT ${cols} FROM twin ORDER BY id`);
    expect(got.rows).toEqual(want.rows);
    expect(got.rows.map((r) => r.name)).toEqual(VALUES.map((v) => v.name));
    expect(calls.filter((c) => c.includes('INSERT INTO rows'))).toHaveLength(1);
  });

  it('keep their order, whatever their values (an object is bound as its JSON text)', async () => {
    await store.write(
      batchWith([
        [INSERT, ['first', 'a', 1, 1, true]],
        ['INSERT INTO rows (name, t) VALUES (?, ?)', ['second', { an: 'object' }]],
        [INSERT, ['third', 'c', 3, 3, false]],
      ]),
    );
    const got = await admin.query('SELECT name, t FROM rows ORDER BY id');
    expect(got.rows).toEqual([
      { name: 'first', t: 'a' },
      // node-postgres sends an object as its JSON text
      { name: 'second', t: '{"an":"object"}' },
      { name: 'third', t: 'c' },
    ]);
  });

  it('fail the whole batch at the first error: nothing of it is stored', async () => {
    const before = await admin.query('SELECT COALESCE(SUM(count), 0)::int AS n FROM call_minutes');
    await expect(
      store.write(
        batchWith([
          [INSERT, ['kept?', 'a', 1, 1, true]],
          [INSERT, ['bad', 'b', 'not a number', 1, true]],
          [INSERT, ['after', 'c', 3, 3, false]],
        ]),
      ),
    ).rejects.toThrow(/bigint/);
    expect((await admin.query('SELECT name FROM rows')).rows).toEqual([]);
    const after = await admin.query('SELECT COALESCE(SUM(count), 0)::int AS n FROM call_minutes');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });
});

describe.skipIf(pgServer().skip)('PostgreSQL: round trips and prepared statements of a group commit', () => {
  let url: string;
  let admin: pg.Client;
  const stores: PostgresStore[] = [];
  /** A store on one connection, so what its connection has prepared can be read on it. */
  const oneConnection = async () => {
    const s = await PostgresStore.open(url, { maxConnections: 1 });
    stores.push(s);
    return s;
  };
  const prepared = async (s: PostgresStore, like: string) =>
    (await s.pool.query('SELECT statement FROM pg_prepared_statements WHERE statement LIKE $1', [like])).rows;
  const names = async (table: string) =>
    (await admin.query(`SELECT name FROM ${table} ORDER BY id`)).rows.map((r: { name: string }) => r.name);

  beforeAll(async () => {
    url = await freshDatabase();
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // Opening a store migrates; the tables below are this test's own.
    await oneConnection();
    await admin.query(
      'CREATE TABLE rows (id SERIAL PRIMARY KEY, name TEXT, t TEXT, i BIGINT, f DOUBLE PRECISION, b BOOLEAN)',
    );
    await admin.query('CREATE TABLE other (id SERIAL PRIMARY KEY, name TEXT)');
  });

  beforeEach(async () => {
    await admin.query('TRUNCATE rows, other');
  });

  afterAll(async () => {
    for (const s of stores) await s.close();
    await admin?.end();
    if (url) await dropDatabase(url);
  });

  it('are two for a whole group: BEGIN with every statement, then COMMIT alone', async () => {
    const store = await oneConnection();
    const calls: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string };
      calls.push(typeof first === 'string' ? first : (first?.text ?? ''));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      // Written in one turn: one group.
      await Promise.all([1, 2, 3].map((i) => store.write(batchWith([[INSERT, [`b${i}`, 't', i, i, true]]]))));
    } finally {
      pg.Client.prototype.query = query;
    }
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatch(/^BEGIN;\nSELECT pg_current_xact_id\(\)/);
    expect(calls[0]).toContain('INSERT INTO call_minutes');
    expect(calls[0]!.split('INSERT INTO rows')).toHaveLength(4);
    expect(calls[1]).toBe('COMMIT');
    expect(await names('rows')).toEqual(['b1', 'b2', 'b3']);
  });

  it('a recurring text is prepared once on a connection and used from then on', async () => {
    const store = await oneConnection();
    const text = 'INSERT INTO other (name) VALUES (?) /* recurring */';
    for (let i = 0; i < 5; i++) await store.write(batchWith([[text, [`r${i}`]]]));
    expect(await names('other')).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    expect(await prepared(store, '%/* recurring */%')).toHaveLength(1);
    // The core tables' statements recur with every group too.
    expect((await prepared(store, 'INSERT INTO call_minutes%')).length).toBe(1);
  });

  it('a prepared statement whose execution failed is used again, not prepared twice', async () => {
    const store = await oneConnection();
    const text = 'INSERT INTO other (name) VALUES (CAST(? AS BIGINT)::text) /* fails on bad input */';
    await store.write(batchWith([[text, ['1']]]));
    await store.write(batchWith([[text, ['2']]]));
    await expect(store.write(batchWith([[text, ['not a number']]]))).rejects.toThrow(/bigint/);
    await store.write(batchWith([[text, ['3']]]));
    expect(await names('other')).toEqual(['1', '2', '3']);
    expect(await prepared(store, '%fails on bad input%')).toHaveLength(1);
  });

  it('a Parse the server skipped after an earlier error is sent again next time', async () => {
    const store = await oneConnection();
    const text = 'INSERT INTO other (name) VALUES (?) /* skipped once */';
    await store.write(batchWith([[text, ['first']]]));
    // Its second sighting names it, but the statement before it fails: its Parse is never answered.
    await expect(
      store.write(
        batchWith([
          [INSERT, ['bad', 't', 'not a number', 1, true]],
          [text, ['never']],
        ]),
      ),
    ).rejects.toThrow(/bigint/);
    await store.write(batchWith([[text, ['third']]]));
    await store.write(batchWith([[text, ['fourth']]]));
    expect(await names('other')).toEqual(['first', 'third', 'fourth']);
    expect(await names('rows')).toEqual([]);
  });

  it('a value node-postgres cannot bind fails its batch: nothing of it is stored, the connection goes on', async () => {
    const store = await oneConnection();
    const unbindable = {
      toPostgres() {
        throw new Error('no text form');
      },
    };
    await expect(
      store.write(
        batchWith([
          ['INSERT INTO other (name) VALUES (?)', ['before']],
          ['INSERT INTO other (name) VALUES (?)', [unbindable]],
          ['INSERT INTO other (name) VALUES (?)', ['after']],
        ]),
      ),
    ).rejects.toThrow(/no text form/);
    expect(await names('other')).toEqual([]);
    await store.write(batchWith([['INSERT INTO other (name) VALUES (?)', ['next']]]));
    expect(await names('other')).toEqual(['next']);
  });

  it('a statement that does not parse fails its batch each time, with its own error', async () => {
    const store = await oneConnection();
    const text = 'INSERT INTO other (name) VALUES (?) garbage';
    for (let i = 0; i < 3; i++) await expect(store.write(batchWith([[text, ['x']]]))).rejects.toThrow(/syntax error/);
    await store.write(batchWith([['INSERT INTO other (name) VALUES (?)', ['after']]]));
    expect(await names('other')).toEqual(['after']);
  });
});
