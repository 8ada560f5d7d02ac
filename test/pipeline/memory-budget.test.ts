/**
 * The dedupe memory's byte budget (docs/performance.md, "Sizing the dedupe memory"): at most 200 bytes
 * per remembered trace for the memory itself — by its own accounting of its typed arrays and by the
 * heap measured after a full GC — with no object kept per trace, span or call once batches settle.
 * Not timed: counts and bytes only.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CALL, h64, hashKey, SPAN } from '../../src/pipeline/dedupe-hash.js';
import { DedupeTables } from '../../src/pipeline/dedupe-tables.js';
import { callEntry, Ledger } from '../../src/pipeline/ledger.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap and array-buffer bytes still reachable (typed arrays live outside the V8 heap). */
function live(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const HOUR = 3_600_000;
const BUDGET = 200;

/** A trace as the benchmark's agents make it: two model spans proposing three calls with ids, three tool spans. */
function agentTrace(ledger: Ledger, i: number): void {
  const txn = ledger.begin(i);
  const trace = `${i.toString(16).padStart(16, '0')}0123456789abcdef`;
  const entries = [];
  for (let m = 0; m < 2; m++) txn.claimSpan(trace, `chat${m}-${i}`, 'shop-agent');
  for (let c = 0; c < 3; c++) {
    const e = callEntry('search_orders', `{"order_id":"A-${i}-${c}"}`, true, false, false);
    txn.add(trace, `id:call_${i}_${c}`, e);
    entries.push(e);
  }
  for (let c = 0; c < 3; c++) {
    txn.claimSpan(trace, `tool${c}-${i}`, 'shop-agent');
    txn.markExecuted(txn.get(trace, `id:call_${i}_${c}`)!);
  }
  txn.commit();
  for (const e of entries) {
    e.outcome = 'valid';
    e.model = 'gpt-4o';
    ledger.counted(e);
  }
}

describe('the dedupe memory within its byte budget', () => {
  it('is sized at most 200 bytes per trace at the default max_traces and at other sizes', () => {
    for (const n of [200_000, 50_000, 1_000_000]) expect(DedupeTables.bytesPerTraceFull(n)).toBeLessThanOrEqual(BUDGET);
  });

  it('full, it holds max_traces traces in at most 200 bytes each, by its accounting and after a GC', () => {
    const max = 50_000;
    const before = live();
    const ledger = new Ledger({ maxTraces: max, maxCallsPerTrace: 1_000, traceTtlMs: HOUR });
    for (let i = 0; i < max * 1.2; i++) agentTrace(ledger, i);
    const after = live();
    expect(ledger.size).toBe(max);
    // No object per call is kept once the batches settled.
    expect(ledger.live.size).toBe(0);
    expect(ledger.holds.size).toBe(0);
    expect(ledger.bytes / max).toBeLessThanOrEqual(BUDGET);
    expect((after - before) / max).toBeLessThanOrEqual(BUDGET);
    // Still the newest traces, in full: every span a duplicate, every call counted with its outcome.
    const txn = ledger.begin(max * 1.2);
    const last = max * 1.2 - 1;
    const trace = `${last.toString(16).padStart(16, '0')}0123456789abcdef`;
    expect(txn.claimSpan(trace, `tool2-${last}`, 'shop-agent')).toBe(false);
    expect(txn.get(trace, `id:call_${last}_1`)).toMatchObject({ executed: true, outcome: 'valid', model: 'gpt-4o' });
    txn.commit();
  });

  it('a pool full forgets the least recently touched trace, never the one being written to', () => {
    let evicted = 0;
    // 10 traces: room for 60 spans; one trace of 120 tool spans outgrows the pool and keeps every span.
    const ledger = new Ledger({ maxTraces: 10, maxCallsPerTrace: 1_000, traceTtlMs: HOUR }, () => evicted++);
    const setup = ledger.begin(0);
    for (let t = 0; t < 5; t++) setup.claimSpan(`t${t}`, 's');
    setup.commit();
    const big = ledger.begin(1);
    for (let s = 0; s < 120; s++) expect(big.claimSpan('huge', `s${s}`)).toBe(true);
    big.commit();
    const again = ledger.begin(2);
    for (let s = 0; s < 120; s++) expect(again.claimSpan('huge', `s${s}`)).toBe(false);
    again.commit();
    expect(ledger.size).toBeGreaterThanOrEqual(1);
    expect(evicted).toBeLessThanOrEqual(5);
  });

  it('hashes keep the parts of a key apart and its domains distinct', () => {
    const of = (d: number, a: string, b?: string) => {
      hashKey(d, a, b);
      return `${h64[0]},${h64[1]}`;
    };
    expect(of(SPAN, 'ab', 'c')).not.toBe(of(SPAN, 'a', 'bc'));
    expect(of(SPAN, 'x', '')).not.toBe(of(CALL, 'x', ''));
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(of(SPAN, i.toString(16).padStart(16, '0'), 'svc'));
    expect(seen.size).toBe(100_000);
  });
});
