/**
 * /readyz follows whether writes succeed (issue 8, Low 14): with the disk full, SQLite still answers
 * SELECT 1 while every batch gets 503. After a failed write, readiness checks with a real write until
 * one succeeds, so it recovers without traffic.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolwatch, type Harness } from '../helpers/harness.js';

const diskFull = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

describe('/readyz and failing writes', () => {
  let tw: Harness;
  let full = false;
  beforeAll(async () => {
    tw = await startToolwatch();
    const store = tw.services.store;
    const write = store.write.bind(store);
    const probe = store.probeWrite!.bind(store);
    store.write = (b) => (full ? Promise.reject(diskFull()) : write(b));
    store.probeWrite = () => (full ? Promise.reject(diskFull()) : probe());
  });
  afterAll(async () => {
    await tw.close();
  });

  const post = () =>
    fetch(`${tw.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: '9c8efff798038103d269b633813fc60c',
                    spanId: `00000000000000${Math.floor(Math.random() * 200 + 16).toString(16)}`,
                    name: 'chat',
                    attributes: [
                      {
                        key: 'gen_ai.output.messages',
                        value: {
                          stringValue:
                            '[{"role":"assistant","parts":[{"type":"tool_call","name":"f","arguments":"{}"}]}]',
                        },
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      }),
    });

  it('503 while writes fail, 200 again once a write succeeds — without a batch to prove it', async () => {
    expect((await fetch(`${tw.url}/readyz`)).status).toBe(200);
    full = true;
    expect((await post()).status).toBe(503);
    const down = await fetch(`${tw.url}/readyz`);
    expect(down.status).toBe(503);
    expect(((await down.json()) as { error: string }).error).toMatch(/writes failing since .*disk is full/);
    full = false;
    expect((await fetch(`${tw.url}/readyz`)).status).toBe(200);
    expect((await post()).status).toBe(200);
  });

  it('the SQLite write probe commits a real write', async () => {
    await expect(tw.services.store.probeWrite!()).resolves.toBeUndefined();
  });
});
