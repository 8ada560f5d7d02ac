import { describe, expect, it } from 'vitest';
import type { CheckedCall, Outcome } from '../../src/model.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { batchCallLabels, callLabels } from '../../src/pipeline/call-labels.js';
import { seeded } from '../../src/util/seeded.js';

function call(service: string, model: string, name: string, outcome: Outcome): CheckedCall {
  return {
    source: 'otlp',
    traceId: 't',
    spanId: 's',
    service,
    model,
    name,
    args: { kind: 'none' },
    timeMs: 0,
    outcome,
    fromExecution: false,
  };
}

const OUTCOMES: Outcome[] = [
  { outcome: 'valid' },
  { outcome: 'UnknownName', known: [] },
  { outcome: 'SchemaMismatch', errors: [] },
];

describe('batchCallLabels', () => {
  for (const max of [3, 10_000]) {
    it(`gives every call the labels callLabels would, and the cap the same overflows (cap ${max})`, () => {
      const r = seeded(max);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
      const names = ['a', 'b', '', '_other', 'c\u0000d', 'e'];
      const calls = Array.from({ length: 300 }, () =>
        call(pick(['svc', 'svc2', '_other']), pick(['m1', 'm2', 'm3', 'm4']), pick(names), pick(OUTCOMES)),
      );
      const overflows = { one: 0, batch: 0 };
      const one = new LabelCap(max, () => overflows.one++);
      const batch = new LabelCap(max, () => overflows.batch++);
      const expected = calls.map((c) => callLabels(c, one, 'b'));
      const got = batchCallLabels(calls, batch, 'b');
      expect(got).toEqual(expected);
      expect(overflows.batch).toBe(overflows.one);
      if (max === 3) expect(overflows.one).toBeGreaterThan(0);
    });
  }

  it('shares one labels object between calls under the same names', () => {
    const cap = new LabelCap(100);
    const [x, y, z] = batchCallLabels(
      [
        call('svc', 'm', 'a', { outcome: 'valid' }),
        call('svc', 'm', 'a', { outcome: 'SchemaMismatch', errors: [] }),
        call('svc', 'm', 'a', { outcome: 'UnknownName', known: [] }),
      ],
      cap,
    );
    expect(y).toBe(x);
    expect(z).not.toBe(x);
    expect(z!.tool).toBe('_unknown');
  });
});
