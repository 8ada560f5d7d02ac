/**
 * A PostgreSQL deployment never loads the better-sqlite3 addon (and the embedded default never
 * loads pg): the composition root is bundled with esbuild (test/helpers/bundle.ts: dynamic imports
 * stay separate chunks, packages stay external, as Node would load them from dist/) and run in a
 * child process, which builds the services for one database and reports which packages Node loaded.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle, type Bundle } from '../helpers/bundle.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';

let built: Bundle;

const CHILD = `
import { createRequire } from 'node:module';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { createServices } from './services.js';
const config = loadConfig({ cwd: process.env.DIR, env: { DATABASE_URL: process.env.DB, LOG_LEVEL: 'silent' } });
const services = await createServices(config, createLogger('silent'));
await services.store.ping();
await services.close();
const loaded = Object.keys(createRequire(import.meta.url).cache);
const has = (pkg) => loaded.some((f) => f.includes(\`/node_modules/\${pkg}/\`));
process.stdout.write(JSON.stringify({ store: services.store.kind, betterSqlite3: has('better-sqlite3'), pg: has('pg') }));
`;

function run(db: string, dir: string): { store: string; betterSqlite3: boolean; pg: boolean } {
  const res = spawnSync(process.execPath, [path.join(built.dir, 'child.js')], {
    env: { ...process.env, DB: db, DIR: dir },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (res.status !== 0) throw new Error(`child failed (${res.status}): ${res.stderr}`);
  return JSON.parse(res.stdout) as { store: string; betterSqlite3: boolean; pg: boolean };
}

beforeAll(async () => {
  built = await bundle('engines', { config: 'src/config.ts', logger: 'src/logger.ts', services: 'src/services.ts' });
  writeFileSync(path.join(built.dir, 'child.js'), CHILD);
});
afterAll(() => built?.remove());

describe('which database engine a deployment loads', () => {
  it.skipIf(pgServer().skip)('PostgreSQL: better-sqlite3 is never loaded', async () => {
    const url = await freshDatabase();
    const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-engines-'));
    try {
      expect(run(url, dir)).toEqual({ store: 'postgres', betterSqlite3: false, pg: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await dropDatabase(url);
    }
  });

  it('SQLite: better-sqlite3 is loaded, pg is not (the check can see a loaded addon)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-engines-'));
    try {
      expect(run(path.join(dir, 'toolwatch.db'), dir)).toEqual({ store: 'sqlite', betterSqlite3: true, pg: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
