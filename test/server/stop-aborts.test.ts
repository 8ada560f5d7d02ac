/**
 * Issue 17, finding 16: a shutdown must not wait for an answer that never comes. A stand-in server
 * takes requests and never answers; toolwatch stops (a real SIGTERM to a real process for Langfuse;
 * the judge's client with the stop signal its services abort) and the request in flight ends at once
 * — before, the process waited out server.shutdown_grace and exited 1.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIJudgeClient } from '../../src/judge/client.js';
import { buildMain, startMain, type BuiltMain } from '../helpers/main-process.js';
import { freePort } from '../global-setup.js';

/** Accepts every request and never answers it; counts what came in. */
async function silentServer(): Promise<{ url: string; received: () => number; close(): Promise<void> }> {
  const held: ServerResponse[] = [];
  let received = 0;
  const server: Server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    received++;
    held.push(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const until = async (probe: () => boolean, what: string) => {
  for (let i = 0; i < 600; i++) {
    if (probe()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

describe('stop aborts requests that never answer', () => {
  let silent: Awaited<ReturnType<typeof silentServer>>;
  let built: BuiltMain;
  let dir: string;
  beforeAll(async () => {
    silent = await silentServer();
    built = await buildMain();
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-stop-'));
  });
  afterAll(async () => {
    await silent.close();
    built.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGTERM while a Langfuse request hangs: exit 0 well inside the grace, not its timer', async () => {
    const file = path.join(dir, 'toolwatch.yaml');
    // The request's own timeout is far past the grace: only an abort can end it in time.
    writeFileSync(
      file,
      [
        `database_url: ${JSON.stringify(path.join(dir, 'toolwatch.db'))}`,
        'server:',
        '  shutdown_grace: 5s',
        'langfuse:',
        '  enabled: true',
        `  base_url: ${silent.url}`,
        "  schedule: '* * * * * *'",
        '  request_timeout: 10m',
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const tw = startMain(built.file, {
      cwd: dir,
      args: ['--config', file],
      env: {
        PORT: String(port),
        LOG_LEVEL: 'info',
        LANGFUSE_PUBLIC_KEY: 'pk-lf-test',
        LANGFUSE_SECRET_KEY: 'sk-lf-test',
      },
    });
    try {
      await tw.waitFor(/toolwatch is listening/);
      const before = silent.received();
      await until(() => silent.received() > before, 'a Langfuse request');
      tw.child.kill('SIGTERM');
      const code = await tw.exited;
      if (code !== 0) console.log(tw.output());
      expect(code).toBe(0);
      expect(tw.output()).toMatch(/"msg":"stopped"/);
      expect(tw.output()).not.toMatch(/shutdown grace period over/);
    } finally {
      await tw.stop();
    }
  });

  it("the judge's request in flight and its wait between attempts end when the stop signal aborts", async () => {
    const stop = new AbortController();
    const client = new OpenAIJudgeClient({
      baseUrl: `${silent.url}/v1`,
      model: 'judge',
      timeoutMs: 600_000,
      maxRetries: 3,
      maxRetryWaitMs: 60_000,
      backoffBaseMs: 60_000,
      signal: stop.signal,
    });
    const before = silent.received();
    const answer = client.judge([{ role: 'user', content: 'judge this' }]).catch((e: Error) => e);
    await until(() => silent.received() > before, 'the judge request');
    stop.abort();
    const err = await answer;
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('toolwatch is stopping');
    // Not retried: the stand-in server saw the one request.
    expect(silent.received()).toBe(before + 1);
  });
});
