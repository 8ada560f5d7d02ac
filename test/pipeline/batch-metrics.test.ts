import { describe, expect, it } from 'vitest';
import type { CheckedCall, Outcome } from '../../src/model.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import { BatchMetrics } from '../../src/pipeline/batch-metrics.js';
import type { PipelineDeps } from '../../src/pipeline/ports.js';
import type { CallLabels } from '../../src/pipeline/call-labels.js';
import { seeded } from '../../src/util/seeded.js';

/** A deterministic stream (mulberry32). */
const rand = seeded;

const COUNTERS = ['toolwatch_tool_calls_total', 'toolwatch_unvalidated_calls_total', 'toolwatch_invalid_json_total'];

async function exposition(m: ReturnType<typeof createMetrics>): Promise<string> {
  const text = await m.registry.metrics();
  return text
    .split('\n')
    .filter((l) => COUNTERS.some((c) => l.startsWith(c)))
    .join('\n');
}

describe('BatchMetrics.count', () => {
  for (const distinct of [2, 40]) {
    it(`moves the call counters as one inc per call would, series in the same order (${distinct} values per label)`, async () => {
      const r = rand(distinct);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
      const names = Array.from({ length: distinct }, (_, i) => `n${i}`);
      const outcomes: Outcome[] = [
        { outcome: 'valid' },
        { outcome: 'SchemaMismatch', errors: [] },
        { outcome: 'UnknownName', known: [] },
        { outcome: 'unvalidated', reason: 'no_schema' },
        { outcome: 'unvalidated', reason: 'no_arguments' },
        { outcome: 'InvalidJson', message: 'x', cause: 'truncated' },
        { outcome: 'InvalidJson', message: 'x', cause: 'other' },
      ];
      const summed = createMetrics();
      const byCall = createMetrics();
      const cap = new LabelCap(10_000);
      const counter = new BatchMetrics({ metrics: summed, labels: cap } as unknown as PipelineDeps);
      for (let batch = 0; batch < 5; batch++) {
        const calls: CheckedCall[] = [];
        const labels: CallLabels[] = [];
        for (let i = 0; i < 80; i++) {
          const names3 = { service: pick(names), model: pick(names), tool: pick(names) };
          calls.push({ ...names3, name: names3.tool, outcome: pick(outcomes) } as unknown as CheckedCall);
          labels.push({ ...names3, metric: { ...names3 } });
        }
        const source = pick(['otlp', 'langfuse'] as const);
        counter.count(
          source,
          calls,
          labels,
          [],
          { dropped: 0, redactionFailures: { arguments: 0, message: 0 } },
          0,
          0,
          () => undefined,
        );
        // The reference: each call's own incs, as the counters moved before they were summed per batch.
        for (let i = 0; i < calls.length; i++) {
          const o = calls[i]!.outcome;
          const { service, model, tool } = labels[i]!.metric;
          byCall.toolCalls.inc({ service, model, tool, outcome: o.outcome, source });
          if (o.outcome === 'unvalidated') byCall.unvalidated.inc({ service, reason: o.reason });
          else if (o.outcome === 'InvalidJson') byCall.invalidJson.inc({ service, reason: o.cause });
        }
      }
      const want = await exposition(byCall);
      expect(want.split('\n').length).toBeGreaterThan(distinct === 2 ? 10 : 100);
      expect(await exposition(summed)).toBe(want);
    });
  }
});
