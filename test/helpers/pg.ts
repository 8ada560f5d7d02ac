/**
 * PostgreSQL for tests: the server test/global-setup.ts found or started, and a fresh database on
 * it per caller, so parallel test files never share tables.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export interface PgServer {
  /** The server's URL ('' when there is none). */
  url: string;
  /** Set when there is no server and TOOLWATCH_SKIP_PG=1 asked to skip rather than fail. */
  skip: boolean;
  /** Why there is no server. */
  problem: string;
}

/** Call at collection time: `describe.skipIf(pgServer().skip)(…)`. */
export function pgServer(): PgServer {
  const url = inject('toolwatchPgUrl') ?? '';
  const problem = url
    ? ''
    : inject('toolwatchPgProblem') || 'no PostgreSQL server (is test/global-setup.ts in vitest.config.ts globalSetup?)';
  return { url, skip: !url && process.env.TOOLWATCH_SKIP_PG === '1', problem };
}

/**
 * Creates a uniquely named, empty database and returns its URL. Fails (never skips) without a
 * server. The database sorts text like en-US (ICU), as production clusters usually do, rather than
 * like the C locale a bare test cluster gets, so queries that depend on collation show it; on a
 * server without ICU it takes the server's default.
 */
export async function freshDatabase(): Promise<string> {
  const server = pgServer();
  if (!server.url) throw new Error(server.problem);
  const name = `toolwatch_test_${process.pid}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    try {
      await client.query(`CREATE DATABASE "${name}" LOCALE_PROVIDER icu ICU_LOCALE 'en-US' TEMPLATE template0`);
    } catch {
      await client.query(`CREATE DATABASE "${name}"`);
    }
  } finally {
    await client.end();
  }
  const u = new URL(server.url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Drops a database freshDatabase() made (closing whatever still connects to it). */
export async function dropDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!name.startsWith('toolwatch_test_')) throw new Error(`refusing to drop ${name}: not a test database`);
  const client = new pg.Client({ connectionString: pgServer().url });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
