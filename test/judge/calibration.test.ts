import { describe, expect, it } from 'vitest';
import { calibrate, cohensKappa, verdictRates, wilson } from '../../src/judge/calibration.js';
import type { LabelPair, VerdictPoint } from '../../src/judge/store.js';

/** A 2×2 table as rater pairs: yy both yes, yn A yes B no, ny A no B yes, nn both no. */
function table(yy: number, yn: number, ny: number, nn: number): [boolean, boolean][] {
  return [
    ...Array.from({ length: yy }, () => [true, true] as [boolean, boolean]),
    ...Array.from({ length: yn }, () => [true, false] as [boolean, boolean]),
    ...Array.from({ length: ny }, () => [false, true] as [boolean, boolean]),
    ...Array.from({ length: nn }, () => [false, false] as [boolean, boolean]),
  ];
}

describe("Cohen's kappa against textbook values", () => {
  it('Wikipedia "Cohen\'s kappa", worked example (50 grant proposals): κ = 0.40', () => {
    // 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: p_o = 0.70, p_e = 0.50, κ = 0.40.
    expect(cohensKappa(table(20, 5, 10, 15))).toBeCloseTo(0.4, 10);
  });

  it('Wikipedia "Cohen\'s kappa", same agreement different κ: 0.1304 and 0.2593', () => {
    // Both tables agree on 60 of 100, yet chance agreement differs.
    expect(cohensKappa(table(45, 15, 25, 15))).toBeCloseTo(0.1304, 4);
    expect(cohensKappa(table(25, 35, 5, 35))).toBeCloseTo(0.2593, 4);
  });

  it('perfect agreement is 1, systematic disagreement is −1, and constant raters leave κ undefined', () => {
    expect(cohensKappa(table(10, 0, 0, 10))).toBe(1);
    expect(cohensKappa(table(0, 10, 10, 0))).toBe(-1);
    expect(cohensKappa(table(10, 0, 0, 0))).toBeNull();
    expect(cohensKappa([])).toBeNull();
  });
});

describe('calibration status', () => {
  const pair = (j: [boolean, number, number], h: [boolean, number, number]): LabelPair => ({
    judge: { reached_goal: j[0], unnecessary_calls: j[1], dangerous_calls: j[2] },
    human: { reached_goal: h[0], unnecessary_calls: h[1], dangerous_calls: h[2] },
  });

  it('is uncalibrated with too few labels even when they agree', () => {
    const pairs = Array.from({ length: 10 }, (_, i) =>
      pair([i % 2 === 0, i % 3, i % 4 === 0 ? 1 : 0], [i % 2 === 0, i % 3, i % 4 === 0 ? 1 : 0]),
    );
    const c = calibrate(pairs, 0.6, 50);
    expect(c.calibrated).toBe(false);
    expect(c.fields.every((f) => f.reason === 'too_few_labels' && f.n === 10 && f.kappa === 1)).toBe(true);
  });

  it('is uncalibrated below min_kappa with n ≥ 50, calibrated above; counts compare as "> 0"', () => {
    // reached_goal: the 40/10/... table scaled to n=100 gives κ=0.4 (< 0.6).
    const low = table(40, 10, 20, 30).map(([j, h]) => pair([j, 2, 0], [h, 1, 0]));
    const c = calibrate(low, 0.6, 50);
    expect(c.fields.find((f) => f.field === 'reached_goal')).toMatchObject({
      n: 100,
      calibrated: false,
      reason: 'low_kappa',
    });
    expect(c.fields.find((f) => f.field === 'reached_goal')!.kappa).toBeCloseTo(0.4, 10);
    // unnecessary 2 vs 1 are both "> 0": they agree, but nobody ever says 0, so κ is undefined.
    expect(c.fields.find((f) => f.field === 'unnecessary_calls')).toMatchObject({
      kappa: null,
      reason: 'undefined_kappa',
    });

    const good = table(45, 2, 3, 50).map(([j, h], i) =>
      pair([j, j ? 0 : 1, i % 5 === 0 ? 1 : 0], [h, h ? 0 : 1, i % 5 === 0 ? 1 : 0]),
    );
    expect(calibrate(good, 0.6, 50).calibrated).toBe(true);
  });
});

describe('verdict rates', () => {
  it('Wilson interval matches the textbook value (p = 0.5, n = 100 → 0.4038 … 0.5962)', () => {
    const ci = wilson(0.5, 100)!;
    expect(ci.low).toBeCloseTo(0.4038, 4);
    expect(ci.high).toBeCloseTo(0.5962, 4);
    expect(wilson(0, 0)).toBeNull();
  });

  it('reweights by inverse sampling probability so oversampled failures do not bias the rate', () => {
    // Population: 100 traces, 90 clean (goal reached) sampled at 10%, 10 with failures (goal missed) sampled at 100%.
    const points: VerdictPoint[] = [
      ...Array.from({ length: 9 }, (_, i) => ({
        traceId: `c${i}`,
        service: 's',
        runId: 1,
        reachedGoal: true,
        unnecessaryCalls: 0,
        dangerousCalls: 0,
        weight: 10,
      })),
      ...Array.from({ length: 10 }, (_, i) => ({
        traceId: `f${i}`,
        service: 's',
        runId: 1,
        reachedGoal: false,
        unnecessaryCalls: 1,
        dangerousCalls: 0,
        weight: 1,
      })),
    ];
    const r = verdictRates(points);
    expect(r.reachedGoal.rate).toBeCloseTo(0.9, 10); // unweighted it would be 9/19 ≈ 0.47
    expect(r.withUnnecessaryCalls.rate).toBeCloseTo(0.1, 10);
    expect(r.effectiveN).toBeCloseTo(100 ** 2 / (9 * 100 + 10), 10);
    expect(r.reachedGoal.ci95!.low).toBeLessThan(0.9);
    expect(r.reachedGoal.ci95!.high).toBeGreaterThan(0.9);
    expect(verdictRates([]).reachedGoal).toEqual({ rate: null, ci95: null });
  });
});
