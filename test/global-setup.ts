/**
 * Vitest globalSetup: finds or starts the PostgreSQL server the tests use, once per run.
 *
 * - TOOLWATCH_TEST_PG_URL set: used as is (a server you run; the tests create databases on it).
 * - Otherwise, when PostgreSQL 15 is installed (/usr/lib/postgresql/15/bin/initdb): a throwaway
 *   cluster in a temp dir, on 127.0.0.1 and a free port, stopped and deleted in teardown.
 * - Neither: tests that need PostgreSQL fail and say why (skipped only with TOOLWATCH_SKIP_PG=1).
 *
 * Test files read the result through inject('toolwatchPgUrl') — see test/helpers/pg.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A postgres:// URL of a server where the tests may CREATE DATABASE; '' when there is none. */
    toolwatchPgUrl: string;
    /** Why there is no server (when toolwatchPgUrl is ''). */
    toolwatchPgProblem: string;
  }
}

export const PG_BIN = process.env.TOOLWATCH_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface Cluster {
  url: string;
  dir: string;
  stop(): void;
  /** Stops the server, keeping its data (`pg_ctl stop -m fast|immediate`), for fault tests. */
  halt(mode: 'fast' | 'immediate'): void;
  /** Starts it again after halt(), on the same port. */
  resume(): void;
}

/** Runs a PostgreSQL binary as the postgres user when we are root (initdb refuses root). */
function pgRun(bin: string, args: string[]): void {
  const exe = path.join(PG_BIN, bin);
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
  const res = spawnSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  if (res.status !== 0) {
    throw new Error(
      `${bin} ${args.join(' ')} failed (${res.status ?? res.signal}): ${res.stderr || res.stdout || res.error?.message}`,
    );
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * initdb + pg_ctl start in a fresh dir under /tmp. `durable: false` (the tests) turns fsync off;
 * nothing in a throwaway cluster needs to survive a power cut.
 */
export async function startCluster(opts: { durable?: boolean; settings?: string[] } = {}): Promise<Cluster> {
  const dir = mkdtempSync('/tmp/toolwatch-pg-');
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'postgres.log');
  try {
    pgRun('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    let lastErr: unknown;
    // The free port can be taken between our probe and the server's bind: try a few.
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = await freePort();
      const serverOpts = [`-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', '-c max_connections=200'];
      if (!opts.durable) serverOpts.push('-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off');
      for (const setting of opts.settings ?? []) serverOpts.push(`-c ${setting}`);
      try {
        pgRun('pg_ctl', ['-D', data, '-l', log, '-o', serverOpts.join(' '), '-w', '-t', '60', 'start']);
        return {
          url: `postgres://postgres@127.0.0.1:${port}/postgres`,
          dir,
          halt(mode) {
            pgRun('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
          },
          resume() {
            pgRun('pg_ctl', ['-D', data, '-l', log, '-o', serverOpts.join(' '), '-w', '-t', '60', 'start']);
          },
          stop() {
            try {
              pgRun('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
            } finally {
              rmSync(dir, { recursive: true, force: true });
            }
          },
        };
      } catch (err) {
        lastErr = err;
      }
    }
    const tail = existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-20).join('\n') : '';
    throw new Error(`could not start PostgreSQL: ${(lastErr as Error).message}\n${tail}`);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const given = process.env.TOOLWATCH_TEST_PG_URL;
  if (given) {
    project.provide('toolwatchPgUrl', given);
    project.provide('toolwatchPgProblem', '');
    return undefined;
  }
  if (!existsSync(path.join(PG_BIN, 'initdb'))) {
    project.provide('toolwatchPgUrl', '');
    project.provide(
      'toolwatchPgProblem',
      `no PostgreSQL for the tests: TOOLWATCH_TEST_PG_URL is not set and ${PG_BIN}/initdb does not exist ` +
        '(install postgresql 15, or point TOOLWATCH_TEST_PG_URL at a server where the tests may CREATE DATABASE; ' +
        'TOOLWATCH_SKIP_PG=1 skips these tests instead)',
    );
    return undefined;
  }
  const cluster = await startCluster();
  project.provide('toolwatchPgUrl', cluster.url);
  project.provide('toolwatchPgProblem', '');
  process.env.TOOLWATCH_TEST_PG_URL = cluster.url; // for anything spawned from here
  return () => {
    delete process.env.TOOLWATCH_TEST_PG_URL;
    cluster.stop();
  };
}
