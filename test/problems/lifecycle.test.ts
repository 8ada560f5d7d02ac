/**
 * A problem's lifecycle with a fixed clock, on both engines, through the real pipeline: open →
 * resolved after problems.resolve_after of quiet → regressed when it occurs again → muted (until a
 * time, then open again) — and the toolwatch_problems gauge per status.
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
import { changeStatus, lifecycleRound } from '../../src/problems/lifecycle.js';
import { ProblemRecorder } from '../../src/problems/record.js';
import { listProblems } from '../../src/problems/store.js';
import { storeRedactor } from '../../src/redact/stored.js';
import { storeEngines } from '../helpers/engines.js';
import { makeSpan } from '../helpers/spans.js';

const HOUR = 3_600_000;
const RESOLVE_AFTER = 24 * HOUR;
let n = 0;
function badCall(timeMs: number): Span {
  n++;
  return makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'm1',
      'gen_ai.tool.definitions': JSON.stringify([
        { type: 'function', name: 'refund', parameters: { type: 'object', required: ['amount'] } },
      ]),
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'tool_call', id: `c${n}`, name: 'refund', arguments: '{}' }] },
      ]),
    },
    {
      traceId: n.toString(16).padStart(32, '0'),
      spanId: n.toString(16).padStart(16, '0'),
      startTimeMs: timeMs - 10,
      endTimeMs: timeMs,
      service: 'shop',
    },
  );
}

let dispose: (() => Promise<void>) | undefined;
afterEach(async () => {
  await dispose?.();
  dispose = undefined;
});

describe.each(storeEngines)('problem lifecycle on $name', (engine) => {
  it.skipIf(engine.skip)('open → resolved → regressed → muted → open, the gauge following', async () => {
    const opened = await engine.open();
    dispose = opened.dispose;
    const { store } = opened;
    const metrics = createMetrics();
    const clock = { now: 1_700_000_000_000 };
    const redactor = storeRedactor('secrets');
    const pipeline = new Pipeline({
      dialects: builtinDialects(),
      registry: new ToolRegistry(),
      schemas: new SchemaCache(),
      ledger: new Ledger({ maxTraces: 1000, maxCallsPerTrace: 100, traceTtlMs: 3 * RESOLVE_AFTER }),
      store,
      metrics,
      labels: new LabelCap(100),
      failuresPerToolPerMinute: 100,
      redactor,
      executionGraceMs: 10_000,
      now: () => clock.now,
      counted: new ProblemRecorder({ sql: store.sql, redactor, maxPerService: 100 }),
    });
    const round = () => lifecycleRound(store.sql, metrics.problems, clock.now, RESOLVE_AFTER);
    const status = async () => (await listProblems(store.sql, 'shop')).map((p) => p.status);
    const gauge = async () =>
      Object.fromEntries((await metrics.problems.get()).values.map((v) => [v.labels.status, v.value]));

    await pipeline.ingestSpans([badCall(clock.now)]);
    await round();
    expect(await status()).toEqual(['open']);
    expect(await gauge()).toEqual({ open: 1, resolved: 0, regressed: 0, muted: 0 });

    clock.now += RESOLVE_AFTER - 1_000; // not quiet long enough yet
    await round();
    expect(await status()).toEqual(['open']);

    clock.now += 2_000;
    await round();
    expect(await status()).toEqual(['resolved']);
    expect(await gauge()).toEqual({ open: 0, resolved: 1, regressed: 0, muted: 0 });

    await pipeline.ingestSpans([badCall(clock.now)]);
    expect(await status()).toEqual(['regressed']);
    await round();
    expect(await gauge()).toEqual({ open: 0, resolved: 0, regressed: 1, muted: 0 });

    const [p] = await listProblems(store.sql, 'shop');
    expect(p!.occurrences).toBe(2);
    await changeStatus(store.sql, 'shop', p!.id, 'mute', clock.now, clock.now + HOUR);
    await pipeline.ingestSpans([badCall(clock.now + 1)]); // occurs while muted: counted, stays muted
    await round();
    expect(await status()).toEqual(['muted']);
    expect((await listProblems(store.sql, 'shop'))[0]!.occurrences).toBe(3);
    expect(await gauge()).toEqual({ open: 0, resolved: 0, regressed: 0, muted: 1 });

    clock.now += HOUR;
    await round(); // the mute ended; it occurred an hour ago, so it is open again
    expect(await status()).toEqual(['open']);

    await changeStatus(store.sql, 'shop', p!.id, 'mute', clock.now); // for good
    clock.now += 10 * RESOLVE_AFTER;
    await round();
    expect(await status()).toEqual(['muted']);
    await changeStatus(store.sql, 'shop', p!.id, 'reopen', clock.now);
    expect(await status()).toEqual(['open']);
  });
});
