/**
 * The pipeline's own encoder (src/store/pg-wire.ts) must write, byte for byte, the messages
 * node-postgres's Connection writes for the same statement and values (its prepareValue binding),
 * so the server sees exactly what it saw before: compared here on every kind of value the features
 * bind, awkward text included, and on the values it hands to prepareValue.
 */
import { Writable } from 'node:stream';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { WireWriter } from '../../src/store/pg-wire.js';

type Connection = {
  parse(q: { name: string; text: string; types: unknown[] }): void;
  bind(c: {
    portal: string;
    statement: string;
    values: readonly unknown[];
    valueMapper: (v: unknown) => unknown;
  }): void;
  describe(m: { type: 'P'; name: string }): void;
  execute(c: { portal: string; rows: number }): void;
  sync(): void;
};

const prepareValue = (pg as unknown as { utils: { prepareValue(v: unknown): unknown } }).utils.prepareValue;

/** What node-postgres's Connection writes for these statements, one Sync after them. */
function viaConnection(statements: { name: string; text?: string; values: readonly unknown[] }[]): Buffer {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  const c = new (pg as unknown as { Connection: new (o: { stream: Writable }) => Connection }).Connection({ stream });
  for (const s of statements) {
    if (s.text !== undefined) c.parse({ name: s.name, text: s.text, types: [] });
    c.bind({ portal: '', statement: s.name, values: s.values, valueMapper: prepareValue });
    c.describe({ type: 'P', name: '' });
    c.execute({ portal: '', rows: 0 });
  }
  c.sync();
  return Buffer.concat(chunks);
}

function viaWire(statements: { name: string; text?: string; values: readonly unknown[] }[]): Buffer {
  const w = new WireWriter();
  for (const s of statements) {
    if (s.text !== undefined) w.parse(s.name, s.text);
    w.bind(s.name, s.values);
    w.describePortal();
    w.execute();
  }
  w.sync();
  return Buffer.from(w.bytes());
}

const AWKWARD = [
  'search_kb',
  '',
  `it's "quoted" ''twice''`,
  'C:\\temp\\new \\x41 \\\\ end\\',
  'São Paulo — 東京 🚀 \u00e9\u0301',
  '"',
  '\\',
  'é"\\',
  '$1 $$ body $$\n-- not a comment\r\n',
  'x'.repeat(31),
  `${'y'.repeat(40)}"${'ü'.repeat(40)}\\`,
  '{NULL}',
];

describe('WireWriter', () => {
  it('writes what node-postgres writes for scalar values of every kind', () => {
    const values = [
      ...AWKWARD,
      0,
      -7,
      1e21,
      -1e-9,
      Math.PI,
      Number.MAX_SAFE_INTEGER,
      true,
      false,
      null,
      undefined,
      12n,
    ];
    const statements = [{ name: '', text: 'SELECT $1', values }];
    expect(viaWire(statements).equals(viaConnection(statements))).toBe(true);
  });

  it('writes integers digit by digit as node-postgres writes their String(), alone and in arrays: signs, -0, every length, past safe', () => {
    const values: number[] = [-0, 9, 10, -10, 1_796_514_473_621, -Number.MAX_SAFE_INTEGER, 2 ** 53, -(2 ** 60)];
    for (let p = 1; p < 2 ** 53; p *= 7) values.push(p, p - 1, -p, -(p + 1));
    const statements = [{ name: '', text: 'SELECT $1', values: [...values, values] }];
    expect(viaWire(statements).equals(viaConnection(statements))).toBe(true);
  });

  it('writes array literals as node-postgres does: every element quoted, quotes and backslashes escaped, NULLs', () => {
    const values = [AWKWARD, [1, 2.5, -3, null, 0], [null, undefined, 'NULL', true], [], ['a\u0000b']];
    const statements = [{ name: 'tw_1', text: 'SELECT unnest($1::text[])', values }];
    expect(viaWire(statements).equals(viaConnection(statements))).toBe(true);
  });

  it('hands what it does not encode itself to prepareValue: objects, dates, nested arrays, Buffers', () => {
    const values = [
      { a: 1, b: 'x"y' },
      new Date(Date.UTC(2026, 11, 2, 14, 0, 0, 5)),
      [
        [1, 2],
        [3, null],
      ],
      [{ k: 'v' }, 'plain'],
      Buffer.from([0, 1, 2, 255]),
      [Buffer.from('hi')],
    ];
    const statements = [{ name: '', text: 'SELECT $1, $2, $3, $4, $5, $6', values }];
    expect(viaWire(statements).equals(viaConnection(statements))).toBe(true);
  });

  it('writes many statements, named and unnamed, parsed or not, in order, past its first buffer', () => {
    const big = 'z'.repeat(50_000);
    const statements = Array.from({ length: 300 }, (_, i) => ({
      name: i % 3 === 0 ? '' : `tw_${i % 7}`,
      ...(i % 2 === 0 ? { text: `INSERT INTO t VALUES ($1, $2) -- ${i}` } : {}),
      values: [i, i % 50 === 0 ? big : AWKWARD[i % AWKWARD.length]],
    }));
    expect(viaWire(statements).equals(viaConnection(statements))).toBe(true);
  });

  it('throws on a value prepareValue refuses, and position/truncate drop the message it began', () => {
    const w = new WireWriter();
    w.parse('', 'SELECT $1');
    const at = w.position;
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => w.bind('', [circular])).toThrow();
    w.truncate(at);
    w.sync();
    const expected = viaConnection([]);
    const parseOnly = new WireWriter();
    parseOnly.parse('', 'SELECT $1');
    expect(Buffer.from(w.bytes()).equals(Buffer.concat([Buffer.from(parseOnly.bytes()), expected]))).toBe(true);
  });
});
