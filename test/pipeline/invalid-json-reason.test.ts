/**
 * The InvalidJson cause end to end, on both engines: spans in the OpenTelemetry GenAI shape through the
 * real readers, checker and pipeline into the store — the cause is the call aggregate's reason, the
 * failure record's reason, and the reason label of toolwatch_invalid_json_total; a resent batch adds
 * nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { Span } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { Ledger } from '../../src/pipeline/ledger.js';
import { Pipeline } from '../../src/pipeline/pipeline.js';
import { storeRedactor } from '../../src/redact/stored.js';
import type { Store } from '../../src/store/store.js';
import { storeEngines } from '../helpers/engines.js';
import { makeSpan } from '../helpers/spans.js';

const T = 'aa'.repeat(16);

function chat(spanId: string, args: string, finish: string): Span {
  return makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'm1',
      'gen_ai.response.finish_reasons': [finish],
      'gen_ai.tool.definitions': JSON.stringify([{ type: 'function', name: 'refund', parameters: { type: 'object' } }]),
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'tool_call', id: `c-${spanId}`, name: 'refund', arguments: args }] },
      ]),
    },
    { traceId: T, spanId, startTimeMs: 1_000_000, endTimeMs: 1_000_100, service: 'shop' },
  );
}

const batch: Span[] = [
  chat('0000000000000001', '{"order": "A-1", "amount": 1', 'length'),
  chat('0000000000000002', '{"order": "A-1"}{"order": "A-2"}', 'tool_calls'),
  chat('0000000000000003', "{'order': 'A-1'}", 'tool_calls'),
  chat('0000000000000004', '{"order": "A-1"} done', 'tool_calls'),
  chat('0000000000000005', '{"order": "A-1"} done', 'length'),
];
const expected = { truncated: 2, concatenated: 1, python_literal: 1, trailing_text: 1 };

let dispose: (() => Promise<void>) | undefined;
afterEach(async () => {
  await dispose?.();
  dispose = undefined;
});

describe.each(storeEngines)('InvalidJson cause on $name', (engine) => {
  it.skipIf(engine.skip)('is stored on aggregates and failure records and counted by reason, once', async () => {
    const opened = await engine.open();
    dispose = opened.dispose;
    const store: Store = opened.store;
    const metrics = createMetrics();
    const clock = { now: 1_000_200 };
    const pipeline = new Pipeline({
      dialects: builtinDialects(),
      registry: new ToolRegistry(),
      schemas: new SchemaCache(),
      ledger: new Ledger({ maxTraces: 100, maxCallsPerTrace: 100, traceTtlMs: 3_600_000 }),
      store,
      metrics,
      labels: new LabelCap(100),
      failuresPerToolPerMinute: 100,
      redactor: storeRedactor('secrets'),
      executionGraceMs: 10_000,
      now: () => clock.now,
    });
    await pipeline.ingestSpans(batch);
    await pipeline.ingestSpans(batch); // a resend: the ledger counts nothing twice
    clock.now += 60_000;
    await pipeline.settle();

    const rows = await store.sql.all<{ reason: string; n: number | string }>(
      "SELECT reason, SUM(count) AS n FROM call_minutes WHERE outcome = 'InvalidJson' GROUP BY reason",
    );
    expect(Object.fromEntries(rows.map((r) => [r.reason, Number(r.n)]))).toEqual(expected);

    const failures = await store.failures({ limit: 100 });
    const byReason: Record<string, number> = {};
    for (const f of failures) byReason[f.reason ?? '-'] = (byReason[f.reason ?? '-'] ?? 0) + 1;
    expect(byReason).toEqual(expected);

    const counted = (await metrics.invalidJson.get()).values;
    expect(Object.fromEntries(counted.map((v) => [v.labels.reason, v.value]))).toEqual(expected);
    expect(new Set(counted.map((v) => v.labels.service))).toEqual(new Set(['shop']));
  });
});
