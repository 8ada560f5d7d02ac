/**
 * Issue 17, finding 12: a SQLite file locked by another process (BEGIN EXCLUSIVE from a second
 * connection: a backup, a sqlite3 shell) must never freeze toolwatch. A real process on a real file,
 * the lock held by a better-sqlite3 connection of this test: every batch is answered 503 +
 * Retry-After (none left hanging), /healthz answers, /readyz says not ready, the lock's release
 * brings 200s back, and SIGTERM while the lock is held exits 0 — before, the synchronous driver
 * waited busy_timeout (5 s) on the event loop for every batch of a failed group, one by one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../global-setup.js';
import { buildMain, startMain, type BuiltMain, type MainProcess } from '../helpers/main-process.js';

const TRACE = 'bc8efff798038103d269b633813fc60c';

function batch(i: number): string {
  const spanId = (0x1000 + i).toString(16).padStart(16, '0');
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'locked' } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId: TRACE,
                spanId,
                name: 'chat',
                attributes: [
                  {
                    key: 'gen_ai.output.messages',
                    value: {
                      stringValue: JSON.stringify([
                        { role: 'assistant', parts: [{ type: 'tool_call', id: `c${i}`, name: 'f', arguments: '{}' }] },
                      ]),
                    },
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
  });
}

describe('a SQLite file locked by another process', () => {
  let built: BuiltMain;
  let dir: string;
  let db: string;
  let tw: MainProcess;
  let url: string;
  let other: Database.Database;
  beforeAll(async () => {
    built = await buildMain();
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-locked-'));
    db = path.join(dir, 'toolwatch.db');
    writeFileSync(
      path.join(dir, 'toolwatch.yaml'),
      `database_url: ${JSON.stringify(db)}\nserver:\n  shutdown_grace: 30s\ningest:\n  max_event_loop_delay: 0s\n`,
    );
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    tw = startMain(built.file, {
      cwd: dir,
      args: ['--config', 'toolwatch.yaml'],
      env: { PORT: String(port), LOG_LEVEL: 'info' },
    });
    await tw.waitFor(/toolwatch is listening/);
    other = new Database(db);
    other.pragma('busy_timeout = 0');
  });
  afterAll(async () => {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await tw.stop();
    built.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  // A generous bound only so a frozen process fails the test instead of hanging it.
  const get = (p: string) => fetch(`${url}${p}`, { signal: AbortSignal.timeout(20_000) });
  const post = (i: number) =>
    fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: batch(i),
      signal: AbortSignal.timeout(20_000),
    });

  it('answers every batch 503 + Retry-After while locked, /healthz 200, /readyz 503; 200 again once released', async () => {
    const first = await post(0);
    expect(first.status, await first.clone().text()).toBe(200);
    other.exec('BEGIN EXCLUSIVE');
    try {
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => post(i + 1)));
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
      }
      const health = await Promise.all([get('/healthz'), get('/healthz'), get('/healthz')]);
      for (const h of health) expect(h.status).toBe(200);
      const ready = await get('/readyz');
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'unavailable', reason: 'writes_failing' });
    } finally {
      other.exec('ROLLBACK');
    }
    // The lock released: readiness comes back without traffic, and batches are taken again.
    let readyAgain = false;
    for (let i = 0; i < 100 && !readyAgain; i++) {
      readyAgain = (await get('/readyz')).status === 200;
      if (!readyAgain) await new Promise((r) => setTimeout(r, 100));
    }
    expect(readyAgain).toBe(true);
    expect((await post(1)).status).toBe(200);
  });

  it('SIGTERM while the lock is held exits 0 on its own, not by the grace timer', async () => {
    other.exec('BEGIN EXCLUSIVE');
    try {
      const inFlight = Array.from({ length: 10 }, (_, i) => post(100 + i).catch((e: Error) => e));
      tw.child.kill('SIGTERM');
      expect(await tw.exited).toBe(0);
      await Promise.all(inFlight);
      expect(tw.output()).toMatch(/"msg":"stopped"/);
      expect(tw.output()).not.toMatch(/shutdown grace period over/);
    } finally {
      other.exec('ROLLBACK');
    }
  });
});
