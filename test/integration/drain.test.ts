/**
 * Draining for shutdown (issue 8, Low 12 and 13): while closing, a batch still gets toolwatch's own
 * 503 — Retry-After, a body in the request's format — not the framework's; and connections kept
 * alive by clients do not hold the shutdown until the grace limit.
 */
import { rmSync } from 'node:fs';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startToolwatch, type Harness } from '../helpers/harness.js';

let tw: Harness | undefined;
afterEach(async () => {
  // The tests close the app themselves (that is the drain); the services and the temp dir remain.
  await tw?.services.close().catch(() => undefined);
  if (tw) rmSync(tw.dir, { recursive: true, force: true });
  tw = undefined;
});

function request(
  agent: http.Agent,
  url: string,
  opts: { method?: string; body?: Buffer; headers?: Record<string, string> } = {},
) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = http.request(url, { agent, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('drain', () => {
  it('the route answers 503 + Retry-After in the request format while draining', async () => {
    tw = await startToolwatch({ listen: false });
    tw.services.draining = true;
    const closing = tw.app.close();
    const res = await tw.app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { 'content-type': 'application/x-protobuf' },
      payload: Buffer.alloc(0),
    });
    await closing;
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers['content-type']).toContain('application/x-protobuf');
  });

  it('kept-alive connections, idle or busy when the drain starts, do not hold the shutdown', async () => {
    tw = await startToolwatch();
    const idle = new http.Agent({ keepAlive: true });
    const busy = new http.Agent({ keepAlive: true });
    expect((await request(idle, `${tw.url}/healthz`)).status).toBe(200);
    expect((await request(busy, `${tw.url}/healthz`)).status).toBe(200);
    // A batch being written when the drain starts: its connection goes idle only after the answer.
    const store = tw.services.store;
    const write = store.write.bind(store);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let writing!: () => void;
    const started = new Promise<void>((r) => (writing = r));
    store.write = async (b) => {
      writing();
      await gate;
      return write(b);
    };
    const body = JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '8c8efff798038103d269b633813fc60c',
                  spanId: '00000000000000a1',
                  name: 'chat',
                  attributes: [
                    {
                      key: 'gen_ai.output.messages',
                      value: {
                        stringValue:
                          '[{"role":"assistant","parts":[{"type":"tool_call","id":"c","name":"f","arguments":"{}"}]}]',
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
    const inFlight = request(busy, `${tw.url}/v1/traces`, {
      method: 'POST',
      body: Buffer.from(body),
      headers: { 'content-type': 'application/json' },
    });
    await started;
    const t0 = Date.now();
    tw.services.draining = true;
    const closing = tw.app.close();
    setTimeout(release, 100);
    expect((await inFlight).status).toBe(200); // the batch in flight still gets its answer
    await closing;
    expect(Date.now() - t0).toBeLessThan(2_000);
    idle.destroy();
    busy.destroy();
  });
});
