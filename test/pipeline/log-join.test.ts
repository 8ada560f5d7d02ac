/**
 * The log-record join's memory of model spans (src/pipeline/log-join.ts): what a record takes from
 * its span, what waits, which spans the bound keeps, and its bytes — a few columns, no object or key
 * string per remembered span, one definitions array for spans that offered the same tools.
 * Not timed: counts and bytes only.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { SpanFacts, ToolDef } from '../../src/model.js';
import { LogJoin, MAX_REMEMBERED_SPANS } from '../../src/pipeline/log-join.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function live(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** As the readers share them: one frozen definition object per distinct definitions text (tooldefs.ts). */
const DEFS: readonly ToolDef[] = Object.freeze([
  Object.freeze({ name: 'search_orders', parameters: { type: 'object' } }),
  Object.freeze({ name: 'refund', parameters: { type: 'object' } }),
]) as readonly ToolDef[];

const traceOf = (i: number) => `${i.toString(16).padStart(16, '0')}0123456789abcdef`;

function modelSpan(i: number, over: Partial<SpanFacts> = {}): SpanFacts {
  return {
    dialect: 'genai',
    traceId: traceOf(i),
    spanId: `${(i * 7).toString(16).padStart(16, '0')}`,
    parentSpanId: '',
    service: 'shop-agent',
    startTimeMs: i,
    endTimeMs: i + 1,
    role: 'model',
    // A fresh string and a fresh array per span, as decoding and parseToolDefs hand them out.
    model: `gpt-4o-${'mini'.slice(0, 4)}`.slice(0),
    offered: DEFS.slice(),
    proposals: [],
    replays: [],
    ...over,
  };
}

/** What a log record of span i reads as: its calls, no model. */
function record(i: number): SpanFacts {
  const f = modelSpan(i, {
    proposals: [{ callId: `call_${i}`, name: 'refund', args: { kind: 'string', raw: '{}' }, index: 0 }],
  });
  delete f.model;
  delete f.offered;
  return f;
}

describe('LogJoin', () => {
  it('a record after its span takes its model and offered tools; one before it waits', () => {
    const join = new LogJoin();
    join.remember([modelSpan(1)]);
    const after = record(1);
    join.join(after, 'log:a');
    expect(after).toMatchObject({ claimId: 'log:a', model: 'gpt-4o-mini' });
    expect(after.offered).toEqual(DEFS);
    expect(after.awaitsSpan).toBeUndefined();

    const before = record(2);
    join.join(before, 'log:b');
    expect(before.model).toBeUndefined();
    expect(before.awaitsSpan).toBe(true);
    // A record of the same span id in another trace is not joined.
    const other = record(1);
    other.traceId = traceOf(99);
    join.join(other, 'log:c');
    expect(other.awaitsSpan).toBe(true);
  });

  it('remembers only model spans without calls of their own, and keeps what a record already says', () => {
    const join = new LogJoin();
    join.remember([
      modelSpan(1, { role: 'tool' }),
      modelSpan(2, { proposals: record(2).proposals }),
      modelSpan(3, { claimId: 'log:x' }),
      modelSpan(4, { model: undefined }),
      modelSpan(5),
    ]);
    expect(join.size).toBe(1);
    const own = record(5);
    own.model = 'claude';
    join.join(own, 'log:y');
    expect(own.model).toBe('claude');
  });

  it('is bounded: the least recently remembered span is forgotten first, a span seen again is renewed', () => {
    const join = new LogJoin(3);
    join.remember([modelSpan(1), modelSpan(2), modelSpan(3)]);
    join.remember([modelSpan(1, { model: 'renewed' })]);
    join.remember([modelSpan(4)]);
    expect(join.size).toBe(3);
    const joined = (i: number) => {
      const r = record(i);
      join.join(r, 'log');
      return r.model;
    };
    expect(joined(2)).toBeUndefined();
    expect(joined(1)).toBe('renewed');
    expect(joined(3)).toBe('gpt-4o-mini');
    expect(joined(4)).toBe('gpt-4o-mini');
    // Many rounds through a full memory: the index stays consistent (backward-shift deletion).
    for (let i = 10; i < 5_000; i++) join.remember([modelSpan(i)]);
    expect(join.size).toBe(3);
    for (let i = 4_997; i < 5_000; i++) expect(joined(i)).toBe('gpt-4o-mini');
    for (let i = 10; i < 4_997; i += 97) expect(joined(i)).toBeUndefined();
  });

  it('spans that offered the same definitions share one array and one model string', () => {
    const join = new LogJoin();
    join.remember([modelSpan(1), modelSpan(2), modelSpan(3, { offered: [DEFS[1]!] })]);
    const [a, b, c] = [1, 2, 3].map((i) => {
      const r = record(i);
      join.join(r, 'log');
      return r;
    });
    expect(a!.offered).toBe(b!.offered);
    expect(c!.offered).toEqual([DEFS[1]]);
  });

  it(`full (${MAX_REMEMBERED_SPANS.toLocaleString('en')} spans), it holds at most 64 bytes per span after a GC`, () => {
    const before = live();
    const join = new LogJoin();
    for (let i = 0; i < MAX_REMEMBERED_SPANS * 1.5; i += 10) {
      const batch: SpanFacts[] = [];
      for (let k = i; k < i + 10; k++) batch.push(modelSpan(k));
      join.remember(batch);
    }
    const after = live();
    expect(join.size).toBe(MAX_REMEMBERED_SPANS);
    expect((after - before) / MAX_REMEMBERED_SPANS).toBeLessThanOrEqual(64);
    expect(join.bytes / MAX_REMEMBERED_SPANS).toBeLessThanOrEqual(64);
    // The newest are all there.
    const last = record(MAX_REMEMBERED_SPANS * 1.5 - 1);
    join.join(last, 'log');
    expect(last.model).toBe('gpt-4o-mini');
  });
});
