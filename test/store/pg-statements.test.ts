/**
 * The features' statements of a PostgreSQL group commit go in one round trip (src/store/pg-statements.ts),
 * with their values written as literals: every value must land exactly as a parametrised statement
 * stores it, the order must hold (also around a statement sent on its own), and the first error must
 * still fail the whole batch.
 */
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inlineParams } from '../../src/store/pg-statements.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { emptyBatch, type BatchExtension, type WriteBatch } from '../../src/store/store.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';

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
  const b = emptyBatch();
  b.callAggregates.push({
    minute: 60_000,
    source: 'otlp',
    service: 's',
    model: 'm',
    tool: 't',
    outcome: 'valid',
    reason: '',
    count: 1,
  });
  const ext: BatchExtension = (tx) => {
    for (const [sql, params] of statements) tx.run(sql, params);
  };
  b.extensions.push(ext);
  return b;
}

describe('inlineParams', () => {
  it.each([
    ['a string, quoted', 'SELECT ?', ["it's"], "SELECT 'it''s'"],
    ['a number, as the text parameter node-postgres sends', 'SELECT ?', [12.5], "SELECT '12.5'"],
    ['null and undefined', 'SELECT ?, ?', [null, undefined], 'SELECT NULL, NULL'],
    ['a boolean', 'SELECT ?', [true], "SELECT 'true'"],
  ])('%s', (_name, sql, params, text) => {
    expect(inlineParams(sql, params)).toBe(text);
  });

  it.each([
    ['an object', [{ a: 1 }]],
    ['a Buffer', [Buffer.from('x')]],
    ['a NUL byte (it would cut the query text)', ['a\0b']],
    ['too few values', []],
    ['too many values', [1, 2]],
  ])('has no literal form for %s', (_name, params) => {
    expect(inlineParams('SELECT ?', params)).toBeUndefined();
  });
});

describe.skipIf(pgServer().skip)('PostgreSQL: the features statements of a group commit', () => {
  let url: string;
  let store: PostgresStore;
  let admin: pg.Client;

  beforeAll(async () => {
    url = await freshDatabase();
    store = await PostgresStore.open(url);
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(
      'CREATE TABLE rows (id SERIAL PRIMARY KEY, name TEXT, t TEXT, i BIGINT, f DOUBLE PRECISION, b BOOLEAN)',
    );
    await admin.query('CREATE TABLE twin (LIKE rows INCLUDING ALL)');
  });

  beforeEach(async () => {
    await admin.query('TRUNCATE rows, twin');
  });

  afterAll(async () => {
    await admin?.end();
    await store?.close();
    if (url) await dropDatabase(url);
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

  it('keep their order around a statement with a value that has no literal form', async () => {
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
