/**
 * The statistics against published values. Reference values were checked with SciPy 1.17
 * (scipy.stats.chi2_contingency(correction=False), scipy.stats.chi2.sf, scipy.stats.norm,
 * scipy.spatial.distance.jensenshannon) and, where named, against the textbook or table.
 */
import { describe, expect, it } from 'vitest';
import {
  chiSquareHomogeneity,
  chiSquareSurvival,
  erfc,
  gammaP,
  gammaQ,
  jensenShannonDistance,
  logGamma,
  normalCdf,
  twoProportionZTest,
} from '../../src/alerts/stats.js';

describe('gamma functions', () => {
  it('logGamma matches factorials and Γ(1/2) = √π', () => {
    expect(logGamma(1)).toBeCloseTo(0, 12);
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
    expect(logGamma(101)).toBeCloseTo(363.73937555556347, 9); // ln(100!)
  });
  it('P + Q = 1, and P(1, x) = 1 − e^−x', () => {
    for (const [a, x] of [
      [1, 0.3],
      [2.5, 1],
      [10, 12],
      [0.5, 4],
    ] as const)
      expect(gammaP(a, x) + gammaQ(a, x)).toBeCloseTo(1, 12);
    expect(gammaP(1, 2)).toBeCloseTo(1 - Math.exp(-2), 13);
  });
  it('erfc and Φ', () => {
    // Python math.erfc: erfc(0.5) = 0.4795001221869535, erfc(3) = 2.2090496998585438e-05, erfc(-1) = 1.842700792949715
    expect(erfc(0.5)).toBeCloseTo(0.4795001221869535, 13);
    expect(erfc(3) / 2.2090496998585438e-5).toBeCloseTo(1, 10);
    expect(erfc(-1)).toBeCloseTo(1.842700792949715, 13);
    // Standard normal table: Φ(−1) = 0.158655…, Φ(1.959964) = 0.975; upper tail at 8σ = 6.221e-16 (norm.sf(8))
    expect(normalCdf(-1)).toBeCloseTo(0.15865525393145707, 12);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 12);
    expect((0.5 * erfc(8 / Math.SQRT2)) / 6.22096057427174e-16).toBeCloseTo(1, 8);
  });
});

describe('chi-square', () => {
  it('survival function at the critical values of the NIST/SEMATECH table (1.3.6.7.4)', () => {
    expect(chiSquareSurvival(3.841458820694124, 1)).toBeCloseTo(0.05, 12);
    expect(chiSquareSurvival(11.0704976935164, 5)).toBeCloseTo(0.05, 12);
    expect(chiSquareSurvival(10.827566170662733, 1)).toBeCloseTo(0.001, 12);
    expect(chiSquareSurvival(0.5, 3)).toBeCloseTo(0.9188914116546758, 12);
    // deep tail stays accurate (no 1 − 0.99999… cancellation): chi2.sf(100, 10) = 5.4497019829205215e-17
    expect(chiSquareSurvival(100, 10) / 5.4497019829205215e-17).toBeCloseTo(1, 8);
  });

  it('test of homogeneity: Agresti, Categorical Data Analysis, party identification by gender (X² = 30.1, df 2)', () => {
    // Agresti (2007), An Introduction to Categorical Data Analysis, 2nd ed., Table 2.5.
    const r = chiSquareHomogeneity([
      [762, 327, 468],
      [484, 239, 477],
    ]);
    expect(r.df).toBe(2);
    expect(r.statistic).toBeCloseTo(30.070149095754672, 9);
    expect(r.pValue / 2.9535891832117595e-7).toBeCloseTo(1, 7);
  });

  it('a 2×3 table worked by hand: X² = 16/3, p = e^(−8/3) for df 2', () => {
    // expected 15/20/25 in both rows; X² = 2·(25/15 + 0 + 25/25) = 16/3; for df = 2 the survival is exp(−x/2).
    const r = chiSquareHomogeneity([
      [10, 20, 30],
      [20, 20, 20],
    ]);
    expect(r.statistic).toBeCloseTo(16 / 3, 12);
    expect(r.pValue).toBeCloseTo(Math.exp(-8 / 3), 12);
    expect(r.pValue).toBeCloseTo(0.0694834512228015, 12);
  });

  it('columns empty on both sides are dropped; nothing to compare gives p = 1', () => {
    expect(
      chiSquareHomogeneity([
        [10, 0, 30],
        [20, 0, 20],
      ]).df,
    ).toBe(1);
    expect(
      chiSquareHomogeneity([
        [10, 5],
        [0, 0],
      ]),
    ).toEqual({ statistic: 0, df: 0, pValue: 1 });
    expect(
      chiSquareHomogeneity([
        [10, 0],
        [20, 0],
      ]),
    ).toEqual({ statistic: 0, df: 0, pValue: 1 });
  });
});

describe('Jensen–Shannon distance (base 2)', () => {
  it('matches scipy.spatial.distance.jensenshannon', () => {
    // SciPy's documented example: jensenshannon([1.0, 0.0], [0.5, 0.5]) = 0.46450140402245893 (natural log);
    // with base=2 the same pair gives 0.5579230452841438.
    expect(jensenShannonDistance([1, 0], [0.5, 0.5])).toBeCloseTo(0.5579230452841438, 12);
    expect(jensenShannonDistance([0.1, 0.2, 0.7], [0.3, 0.3, 0.4])).toBeCloseTo(0.2736668758986993, 12);
    // Disjoint distributions are at the maximum distance 1 (SciPy docs: [1,0,0] vs [0,1,0], base 2 → 1.0).
    expect(jensenShannonDistance([1, 0, 0], [0, 1, 0])).toBeCloseTo(1, 12);
    expect(jensenShannonDistance([3, 3], [50, 50])).toBe(0);
  });
  it('takes raw counts and is symmetric', () => {
    expect(jensenShannonDistance([10, 20, 70], [30, 30, 40])).toBeCloseTo(0.2736668758986993, 12);
    expect(jensenShannonDistance([30, 30, 40], [10, 20, 70])).toBeCloseTo(0.2736668758986993, 12);
  });
});

describe('two-proportion z-test', () => {
  it('30/100 vs 20/100: z = 1.633, one-sided p = 0.0512', () => {
    // pooled p = 0.25, se = sqrt(0.25·0.75·0.02) = 0.061237; z = 0.1/0.061237 = 1.6329931618554518
    const r = twoProportionZTest(30, 100, 20, 100);
    expect(r.z).toBeCloseTo(1.6329931618554518, 12);
    expect(r.pGreater).toBeCloseTo(0.051235217429874705, 12);
    expect(r.pTwoSided).toBeCloseTo(0.10247043485974941, 12);
  });
  it('a rise below any fixed threshold: 0.9 % of 5,000 against 0.2 % of 100,000 is significant (z = 10.01)', () => {
    const r = twoProportionZTest(45, 5000, 200, 100_000);
    expect(r.z).toBeCloseTo(10.011687123113628, 10);
    expect(r.pGreater / 6.7711556411546e-24).toBeCloseTo(1, 6);
  });
  it('degenerate samples give no evidence', () => {
    expect(twoProportionZTest(0, 0, 1, 10).pGreater).toBe(1);
    expect(twoProportionZTest(0, 10, 0, 10).pGreater).toBe(1);
  });
});
