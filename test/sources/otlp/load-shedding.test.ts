/**
 * Load shedding when the CPU is the bottleneck (issue 8, Medium 8): new batches get 503 +
 * Retry-After at once while too many are in flight or the event loop lags; a batch whose client has
 * gone is not recorded (the client resends it; recording it too would count it twice).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { LoadShedder } from '../../../src/sources/otlp/load-shedder.js';
import type { WriteBatch } from '../../../src/store/store.js';
import { metricValue, startToolwatch, type Harness } from '../../helpers/harness.js';

const TRACE = 'ac8efff798038103d269b633813fc60c';

function body(service: string, spanId: string): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
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
                        {
                          role: 'assistant',
                          parts: [{ type: 'tool_call', id: `c-${spanId}`, name: 'f', arguments: '{}' }],
                        },
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

let tw: Harness | undefined;
afterEach(async () => {
  await tw?.close();
  tw = undefined;
});

/** Holds the next `count` store writes until release() or fail(); later writes go through. */
function holdWrites(h: Harness, count: number) {
  const store = h.services.store;
  const write = store.write.bind(store);
  const held: { go: () => void; refuse: (e: Error) => void }[] = [];
  let onHeld: () => void = () => {};
  store.write = (b: WriteBatch) => {
    if (held.length >= count) return write(b);
    return new Promise<void>((resolve, reject) => {
      held.push({ go: () => void write(b).then(resolve, reject), refuse: reject });
      onHeld();
    });
  };
  const done = () => (store.write = write);
  return {
    waitHeld: () =>
      new Promise<void>((r) => (held.length >= count ? r() : (onHeld = () => held.length >= count && r()))),
    release: () => {
      done();
      for (const h of held.splice(0)) h.go();
    },
    fail: (e: Error) => {
      done();
      for (const h of held.splice(0)) h.refuse(e);
    },
  };
}

const post = (h: Harness, service: string, spanId: string, signal?: AbortSignal) =>
  fetch(`${h.url}/v1/traces`, {
    method: 'POST',
    body: body(service, spanId),
    headers: { 'content-type': 'application/json' },
    ...(signal ? { signal } : {}),
  });

describe('load shedding', () => {
  it('past max_inflight_requests a new batch gets 503 + Retry-After at once', async () => {
    tw = await startToolwatch({ config: { ingest: { max_inflight_requests: 2 } } });
    const gate = holdWrites(tw, 2);
    const held = gate.waitHeld();
    const a = post(tw, 'shed', '00000000000000a1');
    const b = post(tw, 'shed', '00000000000000a2');
    await held;
    const c = await post(tw, 'shed', '00000000000000a3');
    expect(c.status).toBe(503);
    expect(c.headers.get('retry-after')).toBe('1');
    expect(((await c.json()) as { message: string }).message).toMatch(/too many batches in flight/);
    gate.release();
    expect((await a).status).toBe(200);
    expect((await b).status).toBe(200);
    expect((await post(tw, 'shed', '00000000000000a3')).status).toBe(200);
    const m = await tw.metrics();
    expect(metricValue(m, 'toolwatch_ingest_rejected_total', { reason: 'overloaded' })).toBe(1);
    expect(metricValue(m, 'toolwatch_tool_calls_total', { service: 'shed' })).toBe(3);
  });

  it('while the event loop lags past max_event_loop_delay a new batch gets 503', async () => {
    const shedder = new LoadShedder({ maxInflight: 0, maxLoopDelayMs: 40, sampleMs: 10 });
    shedder.start();
    try {
      expect(shedder.shed()).toBeNull();
      // The CPU busy for a while: every timer fires late.
      for (let i = 0; i < 8; i++) {
        const until = performance.now() + 120;
        while (performance.now() < until);
        await new Promise((r) => setTimeout(r, 1));
      }
      expect(shedder.loopDelayMs).toBeGreaterThan(40);
      expect(shedder.shed()).toBe('event_loop_delay');
      await new Promise((r) => setTimeout(r, 400));
      expect(shedder.shed()).toBeNull(); // recovers once the loop keeps up
    } finally {
      shedder.stop();
    }
  });

  it('a batch whose client has gone is not recorded (its later resend is, once)', async () => {
    tw = await startToolwatch();
    const gate = holdWrites(tw, 1);
    // The original is being written; the client gives up and resends; the resend waits for the original.
    const held = gate.waitHeld();
    const original = post(tw, 'gone', '00000000000000b1');
    await held;
    const abort = new AbortController();
    const resend = post(tw, 'gone', '00000000000000b1', abort.signal).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 100));
    abort.abort(); // this client gave up as well
    expect(await resend).toBeInstanceOf(Error);
    await new Promise((r) => setTimeout(r, 100));
    // The original is refused, and the abandoned resend is not recorded in its place.
    gate.fail(Object.assign(new Error('connection terminated'), { code: '57P01', severity: 'FATAL' }));
    expect((await original).status).toBe(503);
    await new Promise((r) => setTimeout(r, 100));
    let m = await tw.metrics();
    expect(metricValue(m, 'toolwatch_tool_calls_total', { service: 'gone' })).toBe(0);
    expect(metricValue(m, 'toolwatch_ingest_rejected_total', { reason: 'client_gone' })).toBe(1);
    expect((await post(tw, 'gone', '00000000000000b1')).status).toBe(200);
    m = await tw.metrics();
    expect(metricValue(m, 'toolwatch_tool_calls_total', { service: 'gone' })).toBe(1);
  });

  it('the defaults are on', () => {
    const cfg = loadConfig({ cwd: '/', env: {} });
    expect(cfg.ingest.maxInflightRequests).toBe(1024);
    expect(cfg.ingest.maxEventLoopDelayMs).toBe(250);
  });
});
