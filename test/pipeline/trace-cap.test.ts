/**
 * `dedupe.max_calls_per_trace` bounds memory, never the count: a trace with more calls than the cap,
 * its proposals and tool spans in either order and in many batches, counts each call once (issue 17,
 * finding 13: 2,475 calls used to count 3,950).
 */
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { Span } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { decodeRecord, journalRecord } from '../../src/pipeline/ledger-journal.js';
import { callEntry, Ledger } from '../../src/pipeline/ledger.js';
import { Pipeline } from '../../src/pipeline/pipeline.js';
import { storeRedactor } from '../../src/redact/stored.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { makeSpan } from '../helpers/spans.js';

const TRACE = 'abababababababababababababababab';
const CALLS = 2_475;
const CAP = 1_000;
const defs = JSON.stringify([{ type: 'function', name: 'weather', parameters: { type: 'object' } }]);
const hex = (prefix: string, i: number) => `${prefix}${i.toString(16).padStart(15, '0')}`;

const proposal = (i: number): Span =>
  makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'm1',
      'gen_ai.tool.definitions': defs,
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'tool_call', id: `call_${i}`, name: 'weather', arguments: '{}' }] },
      ]),
    },
    { traceId: TRACE, spanId: hex('a', i), startTimeMs: 1_000 + i, endTimeMs: 1_001 + i },
  );

const toolSpan = (i: number): Span =>
  makeSpan(
    { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'weather', 'gen_ai.tool.call.id': `call_${i}` },
    { traceId: TRACE, spanId: hex('b', i), startTimeMs: 1_002 + i, endTimeMs: 1_003 + i },
  );

async function counted(order: 'proposals first' | 'tool spans first'): Promise<{ calls: number; executions: number }> {
  const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
  const clock = { now: 1_000_000 };
  const metrics = createMetrics();
  const pipeline = new Pipeline({
    dialects: builtinDialects(),
    registry: new ToolRegistry(),
    schemas: new SchemaCache(),
    ledger: new Ledger({ maxTraces: 100, maxCallsPerTrace: CAP, traceTtlMs: 3_600_000 }),
    store,
    metrics,
    labels: new LabelCap(100),
    failuresPerToolPerMinute: 10,
    redactor: storeRedactor('secrets'),
    executionGraceMs: 10_000,
    now: () => clock.now,
  });
  const ids = Array.from({ length: CALLS }, (_, i) => i);
  const first = order === 'proposals first' ? proposal : toolSpan;
  const second = order === 'proposals first' ? toolSpan : proposal;
  for (const make of [first, second]) {
    for (let i = 0; i < CALLS; i += 100) await pipeline.ingestSpans(ids.slice(i, i + 100).map(make));
    clock.now += 1_000; // within the grace period: a tool span first waits for its proposal
  }
  clock.now += 60_000;
  await pipeline.settle();
  await pipeline.drain();
  const sum = async (m: { get(): Promise<{ values: { value: number }[] }> }) =>
    (await m.get()).values.reduce((n, v) => n + v.value, 0);
  const out = { calls: await sum(metrics.toolCalls), executions: await sum(metrics.toolExecutions) };
  const stored = (await store.callCounts({ sinceMs: 0 })).reduce((n, r) => n + Number(r.count), 0);
  expect(stored).toBe(out.calls);
  await store.close();
  return out;
}

describe('a trace past dedupe.max_calls_per_trace', () => {
  it.each(['proposals first', 'tool spans first'] as const)('counts %s: 2,475 calls, 2,475 counted', async (order) => {
    expect(await counted(order)).toEqual({ calls: CALLS, executions: CALLS });
  });

  it('the overflow mark survives a restart through the journal', () => {
    const ledger = new Ledger({ maxTraces: 10, maxCallsPerTrace: 1, traceTtlMs: 3_600_000 });
    const txn = ledger.begin(0);
    expect(txn.add('t', 'id:1', callEntry('f', undefined, true, false, false))).toBe(true);
    expect(txn.add('t', 'id:2', callEntry('f', undefined, true, false, false))).toBe(false);
    const record = journalRecord(txn.taken(), 0);
    txn.commit();
    const next = new Ledger({ maxTraces: 10, maxCallsPerTrace: 1, traceTtlMs: 3_600_000 });
    for (const t of decodeRecord(record!.body)!) next.remember(t, 0);
    const later = next.begin(0);
    expect(later.overflowed('t')).toBe(true);
    expect(later.get('t', 'id:1')).toBeDefined();
  });
});
