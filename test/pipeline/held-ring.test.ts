/**
 * The execution hold's ring of columns: what it hands back is what it was given — span ids of any
 * form (OTLP hex, Langfuse's own), a counted call's outcome and model kept without its entry, a call
 * still to be counted read from its entry when released — through growth and wrap-around.
 */
import { describe, expect, it } from 'vitest';
import type { HeldExecution } from '../../src/pipeline/held-ring.js';
import { HeldRing } from '../../src/pipeline/held-ring.js';
import { callEntry } from '../../src/pipeline/ledger.js';

function held(i: number, spanId: string, over: Partial<HeldExecution> = {}): HeldExecution {
  return {
    source: 'otlp',
    traceId: `trace-${i}`,
    spanId,
    service: 'svc',
    tool: 'weather',
    status: 'server_error',
    durationMs: i,
    timeMs: 1_000 + i,
    dueMs: 2_000 + i,
    ...over,
  };
}

describe('HeldRing', () => {
  it('hands back each span id as given: 16 hex digits packed, any other form kept as is', () => {
    const ring = new HeldRing();
    const ids = ['00f067aa0ba902b7', 'ffffffffffffffff', '0000000000000001', 'obs-7f3c', 'ABCDEF0123456789', ''];
    // Past the first capacity and round the ring twice, so growth and wrap-around both copy the columns.
    const n = 2_600;
    const sent: string[] = [];
    const got: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = ids[i % ids.length]!;
      sent.push(id);
      ring.push(held(i, id));
      if (i % 3 === 2) got.push(ring.release().spanId!, ring.release().spanId!);
    }
    while (ring.length > 0) got.push(ring.release().spanId!);
    expect(got).toEqual(sent);
  });

  it('hands back each trace id and argument text as given: 32 hex digits packed, any other form kept as is', () => {
    const ring = new HeldRing();
    const traces = [
      '4bf92f3577b34da6a3ce929d0e0e4736',
      'ffffffffffffffffffffffffffffffff',
      'lf-trace-7',
      '4BF92F3577B34DA6A3CE929D0E0E4736',
      '',
    ];
    const args = ['{"city":"Oslo"}', undefined, '{"q":"Zürich – 東京"}', ''];
    const n = 2_600;
    const sent: [string, string | undefined][] = [];
    const got: [string, string | undefined][] = [];
    // Every other execution failed (its arguments are handed back) or succeeded (they are not).
    const take = () => {
      const r = ring.release();
      got.push([r.traceId, r.args]);
    };
    for (let i = 0; i < n; i++) {
      const traceId = traces[i % traces.length]!;
      const a = args[i % args.length];
      const status = i % 2 === 0 ? 'server_error' : 'ok';
      sent.push([traceId, status === 'ok' ? undefined : a]);
      ring.push(held(i, '00f067aa0ba902b7', { traceId, args: a, status }));
      if (i % 3 === 2) take(), take();
    }
    while (ring.length > 0) take();
    expect(got).toEqual(sent);
  });

  it('keeps a counted call’s outcome and model without its entry, and reads a waiting one’s entry when released', () => {
    const ring = new HeldRing();
    const counted = callEntry('weather', '{"city":"Oslo"}', true, true, false);
    counted.outcome = 'SchemaMismatch';
    counted.model = 'gpt-4o';
    const waiting = callEntry('weather', undefined, true, true, true);
    ring.push(held(1, '00f067aa0ba902b7', { entry: counted }));
    ring.push(held(2, '00f067aa0ba902b8', { entry: waiting }));
    ring.push(held(3, '00f067aa0ba902b9'));
    expect(ring.firstAwaitsCall()).toBe(false);
    expect(ring.release()).toMatchObject({ callOutcome: 'SchemaMismatch', model: 'gpt-4o' });
    expect(ring.firstAwaitsCall()).toBe(true);
    waiting.outcome = 'valid';
    waiting.model = 'gpt-4o-mini';
    expect(ring.firstAwaitsCall()).toBe(false);
    expect(ring.release()).toMatchObject({ callOutcome: 'valid', model: 'gpt-4o-mini' });
    expect(ring.release()).toMatchObject({ callOutcome: 'unknown', model: '' });
  });
});
