/**
 * Issue 17, finding 15: an overloaded toolwatch answers 503 fast instead of 200 late. At most
 * ingest.max_concurrent_batches batches are recorded at once; the rest wait in arrival order, and
 * one that waited ingest.max_queue_delay gets 503 + Retry-After then — as does a new batch while the
 * oldest waiting one is past it. Real sockets; the store's writes held to make the work last.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LoadShedder } from '../../../src/sources/otlp/load-shedder.js';
import type { WriteBatch } from '../../../src/store/store.js';
import { metricValue, startToolwatch, type Harness } from '../../helpers/harness.js';

const TRACE = 'dc8efff798038103d269b633813fc60c';

function body(spanId: string): string {
  const messages = [
    { role: 'assistant', parts: [{ type: 'tool_call', id: `c-${spanId}`, name: 'f', arguments: '{}' }] },
  ];
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'queued' } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId: TRACE,
                spanId,
                name: 'chat',
                attributes: [{ key: 'gen_ai.output.messages', value: { stringValue: JSON.stringify(messages) } }],
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

/** Holds every store write until release(). */
function holdWrites(h: Harness) {
  const store = h.services.store;
  const write = store.write.bind(store);
  const held: (() => void)[] = [];
  let onHeld = () => {};
  store.write = (b: WriteBatch) =>
    new Promise<void>((resolve, reject) => {
      held.push(() => void write(b).then(resolve, reject));
      onHeld();
    });
  return {
    firstHeld: () => new Promise<void>((r) => (held.length > 0 ? r() : (onHeld = r))),
    release: () => {
      store.write = write;
      for (const go of held.splice(0)) go();
    },
  };
}

const post = (h: Harness, spanId: string) =>
  fetch(`${h.url}/v1/traces`, { method: 'POST', body: body(spanId), headers: { 'content-type': 'application/json' } });

describe('shedding on queueing delay', () => {
  it('a batch that waited max_queue_delay for its turn gets 503 at once, not 200 late', async () => {
    tw = await startToolwatch({ config: { ingest: { max_concurrent_batches: 1, max_queue_delay: '300ms' } } });
    const gate = holdWrites(tw);
    const working = post(tw, '00000000000000c1');
    await gate.firstHeld();
    const waiting = await post(tw, '00000000000000c2');
    expect(waiting.status).toBe(503);
    expect(waiting.headers.get('retry-after')).toBe('1');
    expect(((await waiting.json()) as { message: string }).message).toMatch(/waited too long for their turn/);
    gate.release();
    expect((await working).status).toBe(200);
    expect((await post(tw, '00000000000000c3')).status).toBe(200);
    const m = await tw.metrics();
    expect(metricValue(m, 'toolwatch_ingest_shed_total', { reason: 'queueing_delay' })).toBe(1);
    expect(metricValue(m, 'toolwatch_tool_calls_total', { service: 'queued' })).toBe(2);
  });

  it('every batch that waits past max_queue_delay gets 503; none is recorded late', async () => {
    tw = await startToolwatch({ config: { ingest: { max_concurrent_batches: 1, max_queue_delay: '400ms' } } });
    const gate = holdWrites(tw);
    const working = post(tw, '00000000000000d1');
    await gate.firstHeld();
    const first = post(tw, '00000000000000d2');
    const second = post(tw, '00000000000000d3');
    const third = post(tw, '00000000000000d4');
    const answers = await Promise.all([first, second, third]);
    for (const a of answers) expect(a.status).toBe(503);
    gate.release();
    expect((await working).status).toBe(200);
    const m = await tw.metrics();
    expect(metricValue(m, 'toolwatch_ingest_shed_total', { reason: 'queueing_delay' })).toBe(3);
    expect(metricValue(m, 'toolwatch_ingest_rejected_total', { reason: 'overloaded' })).toBe(3);
  });

  it('while the oldest waiting batch is past max_queue_delay (its timer late: a busy loop), a new one is refused at once', async () => {
    const shedder = new LoadShedder({ maxInflight: 0, maxLoopDelayMs: 0, maxConcurrent: 1, maxQueueDelayMs: 50 });
    expect(await shedder.startWork()).toBeNull();
    const oldest = shedder.startWork();
    expect(shedder.queued).toBe(1);
    const until = performance.now() + 80;
    while (performance.now() < until); // the loop busy: the oldest's own timer cannot fire yet
    expect(await shedder.startWork()).toBe('queueing_delay');
    expect(shedder.queued).toBe(1); // refused without queueing
    expect(await oldest).toBe('queueing_delay');
    shedder.endWork();
    expect(await shedder.startWork()).toBeNull();
  });

  it('a batch whose turn comes within max_queue_delay is recorded (200)', async () => {
    tw = await startToolwatch({ config: { ingest: { max_concurrent_batches: 1, max_queue_delay: '1m' } } });
    const gate = holdWrites(tw);
    const working = post(tw, '00000000000000e1');
    await gate.firstHeld();
    const waiting = post(tw, '00000000000000e2');
    await new Promise((r) => setTimeout(r, 100));
    gate.release();
    expect((await working).status).toBe(200);
    expect((await waiting).status).toBe(200);
    expect(metricValue(await tw.metrics(), 'toolwatch_tool_calls_total', { service: 'queued' })).toBe(2);
  });
});
