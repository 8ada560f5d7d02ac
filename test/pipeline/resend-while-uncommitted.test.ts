/**
 * A resend that arrives while its original is still being written (issue 8, High 3): the client
 * timed out and sent the batch again. It may be acknowledged as a duplicate only once the original
 * committed; if the original is refused, the resend is the one counted. The interleaving is made
 * deterministic with a store whose first write is held until the test lets it go.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WriteBatch } from '../../src/store/store.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';

const TRACE = '7c8efff798038103d269b633813fc60c';
const CALLS = 25;

function batchBody(service: string): string {
  const spans = Array.from({ length: CALLS }, (_, i) => ({
    traceId: TRACE,
    spanId: (0xa000 + i).toString(16).padStart(16, '0'),
    name: 'chat',
    startTimeUnixNano: String(Date.now() * 1e6),
    endTimeUnixNano: String(Date.now() * 1e6),
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
      {
        key: 'gen_ai.output.messages',
        value: {
          stringValue: JSON.stringify([
            { role: 'assistant', parts: [{ type: 'tool_call', id: `call-${i}`, name: 'f', arguments: '{}' }] },
          ]),
        },
      },
    ],
  }));
  return JSON.stringify({
    resourceSpans: [
      { resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] }, scopeSpans: [{ spans }] },
    ],
  });
}

interface Held {
  release(): void;
  fail(err: Error): void;
}

describe('a resend while its original is uncommitted', () => {
  let tw: Harness;
  let holdNext = false;
  let held: Held | undefined;
  let heldStarted: () => void = () => {};

  beforeEach(async () => {
    tw = await startToolwatch();
    const store = tw.services.store;
    const write = store.write.bind(store);
    store.write = (b: WriteBatch) => {
      if (!holdNext) return write(b);
      holdNext = false;
      return new Promise<void>((resolve, reject) => {
        held = { release: () => write(b).then(resolve, reject), fail: reject };
        heldStarted();
      });
    };
  });
  afterEach(async () => {
    await tw.close();
  });

  const post = (service: string) =>
    fetch(`${tw.url}/v1/traces`, {
      method: 'POST',
      body: batchBody(service),
      headers: { 'content-type': 'application/json' },
    });
  const counted = async (service: string) => metricValue(await tw.metrics(), 'toolwatch_tool_calls_total', { service });
  const started = () => new Promise<void>((r) => (heldStarted = r));

  it('original refused: the resend is not acknowledged before, and then counts every call', async () => {
    holdNext = true;
    const writing = started();
    const original = post('refused-first');
    await writing;
    let resendAnswered = false;
    const resend = post('refused-first').then((r) => ((resendAnswered = true), r));
    await new Promise((r) => setTimeout(r, 200));
    expect(resendAnswered).toBe(false); // waits for the original's outcome
    held!.fail(
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014', severity: 'ERROR' }),
    );
    expect((await original).status).toBe(503);
    expect((await resend).status).toBe(200);
    expect(await counted('refused-first')).toBe(CALLS);
    const stats = (await (await fetch(`${tw.url}/api/stats?service=refused-first`)).json()) as {
      tools: { total: number }[];
    };
    expect(stats.tools[0]?.total).toBe(CALLS);
  });

  it('original committed: the resend is acknowledged after it, as a duplicate, counted once', async () => {
    holdNext = true;
    const writing = started();
    const original = post('committed-first');
    await writing;
    let resendAnswered = false;
    const resend = post('committed-first').then((r) => ((resendAnswered = true), r));
    await new Promise((r) => setTimeout(r, 200));
    expect(resendAnswered).toBe(false);
    held!.release();
    expect((await original).status).toBe(200);
    expect((await resend).status).toBe(200);
    expect(await counted('committed-first')).toBe(CALLS);
    expect(metricValue(await tw.metrics(), 'toolwatch_duplicate_spans_total')).toBe(CALLS);
  });

  it('batches of other spans of the same trace do not wait', async () => {
    holdNext = true;
    const writing = started();
    const original = post('other-a');
    await writing;
    // Same trace id, other spans and calls: not a resend, so it goes through at once.
    const other = batchBody('other-b')
      .replaceAll('"000000000000a', '"000000000000b')
      .replaceAll('call-', 'other-call-');
    const res = await fetch(`${tw.url}/v1/traces`, {
      method: 'POST',
      body: other,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    held!.release();
    expect((await original).status).toBe(200);
  });
});
