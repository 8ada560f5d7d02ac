/**
 * The features' statements of one group commit (problems, changes, the judge's trajectories …:
 * about fifty small INSERTs per 100-span batch) in one round trip instead of one each. Each round
 * trip costs a protocol exchange on both sides and, on a busy machine, a wait for the server's
 * process to be scheduled; fifty of them per batch were most of a commit's time.
 *
 * The statements are sent in order as one simple-protocol query, each with its parameters written
 * as quoted literals — the same untyped text node-postgres sends as a parameter (`String(v)`, NULL
 * for null/undefined), so the server resolves every type exactly as before. They run one after the
 * other in the caller's transaction, and the first error stops the rest and fails the transaction,
 * as awaiting them one by one did. A statement with a value that has no literal form here (an
 * object, a Buffer, a string with a NUL byte, which would cut the query text) is sent on its own,
 * parametrised, in its place in the order.
 */
import pg from 'pg';
import { toPg } from './sql.js';

/** Longest SQL text sent at once; past it the statements go in several round trips. */
const MAX_SCRIPT_CHARS = 4 << 20;

/** One value as the literal node-postgres's text parameter would be; undefined when there is none. */
function literal(v: unknown): string | undefined {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'string') return v.includes('\0') ? undefined : pg.escapeLiteral(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `'${String(v)}'`;
  return undefined;
}

/** Each statement's text split at its `?`s, once: the features send a handful of distinct statements, over and over. */
const pieces = new Map<string, readonly string[]>();
const MAX_CACHED = 512;

function piecesOf(sql: string): readonly string[] {
  let p = pieces.get(sql);
  if (!p) {
    if (pieces.size >= MAX_CACHED) pieces.clear();
    pieces.set(sql, (p = sql.split('?')));
  }
  return p;
}

/** `sql` with each `?` replaced by its value's literal; undefined when a value has none or the counts differ. */
export function inlineParams(sql: string, params: readonly unknown[]): string | undefined {
  const p = piecesOf(sql);
  if (p.length - 1 !== params.length) return undefined;
  let text = p[0]!;
  for (let i = 0; i < params.length; i++) {
    const lit = literal(params[i]);
    if (lit === undefined) return undefined;
    text += lit + p[i + 1]!;
  }
  return text;
}

/** Runs the statements in order on `c` (inside its transaction), in as few round trips as the values allow. */
export async function runStatements(
  c: pg.PoolClient,
  statements: readonly (readonly [string, readonly unknown[]])[],
): Promise<void> {
  let script: string[] = [];
  let chars = 0;
  const flush = async () => {
    if (script.length === 0) return;
    const text = script.join(';\n');
    script = [];
    chars = 0;
    await c.query(text);
  };
  for (const [sql, params] of statements) {
    const text = inlineParams(sql, params);
    if (text === undefined) {
      await flush();
      await c.query(toPg(sql), params as unknown[]);
      continue;
    }
    if (chars + text.length > MAX_SCRIPT_CHARS) await flush();
    script.push(text);
    chars += text.length + 2;
  }
  await flush();
}
