/** Significance tests for attribution (src/changes/stats.ts) against textbook and exactly computed values. */
import { describe, expect, it } from 'vitest';
import { compareRates, FISHER_MAX_CALLS, fisherExact, formatP, twoProportionZ } from '../../src/changes/stats.js';

/** The two-sided Fisher p-value in exact rational arithmetic (BigInt), as an independent reference. */
function exactFisher(a: number, b: number, c: number, d: number): number {
  const choose = (n: number, k: number): bigint => {
    let r = 1n;
    for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
    return r;
  };
  const r1 = a + b;
  const r2 = c + d;
  const c1 = a + c;
  const weight = (x: number) => choose(r1, x) * choose(r2, c1 - x);
  const observed = weight(a);
  let sum = 0n;
  for (let x = Math.max(0, c1 - r2); x <= Math.min(r1, c1); x++) {
    const w = weight(x);
    if (w <= observed) sum += w;
  }
  const total = choose(r1 + r2, c1);
  if (sum === total) return 1;
  // keep ~20 significant digits through the division, however small the p-value
  const k = total.toString().length - sum.toString().length + 20;
  return Number((sum * 10n ** BigInt(k)) / total) / 10 ** k;
}

describe("Fisher's exact test (two-sided)", () => {
  it.each([
    // Fisher's lady tasting tea: 34/70
    ['tea tasting [[3,1],[1,3]]', [3, 1, 1, 3], 34 / 70],
    // Wikipedia's worked example (R: fisher.test(matrix(c(1,11,9,3),2))$p.value)
    ['Wikipedia [[1,9],[11,3]]', [1, 9, 11, 3], 0.002759456],
    // only the two extreme tables: 2 / C(10,5)
    ['[[0,5],[5,0]]', [0, 5, 5, 0], 2 / 252],
    ['no difference [[5,5],[5,5]]', [5, 5, 5, 5], 1],
    ['empty table', [0, 0, 0, 0], 1],
    ['one margin zero', [0, 10, 0, 7], 1],
  ] as const)('%s', (_label, [a, b, c, d], p) => {
    expect(fisherExact(a, b, c, d).p).toBeCloseTo(p, 6);
  });

  it.each([
    [12, 88, 5, 95],
    [30, 970, 48, 952],
    [0, 400, 3, 397],
  ])('[[%i,%i],[%i,%i]] equals the exact rational sum', (a, b, c, d) => {
    const want = exactFisher(a, b, c, d);
    expect(Math.abs(fisherExact(a, b, c, d).p - want) / want).toBeLessThan(1e-8);
  });

  it("large n in log space: the issue's example (9/2,310 → 156/1,980) is p < 1e-6, finite ln p", () => {
    const r = fisherExact(9, 2301, 156, 1824);
    const want = exactFisher(9, 2301, 156, 1824);
    expect(r.p).toBeGreaterThan(0);
    expect(Math.abs(r.p - want) / want).toBeLessThan(1e-6);
    expect(r.p).toBeLessThan(1e-6);
    // p underflows for an extreme table; ln p stays finite and ordered
    const huge = fisherExact(0, 50_000, 5_000, 45_000);
    expect(huge.p).toBe(0);
    expect(Number.isFinite(huge.logP)).toBe(true);
    expect(huge.logP).toBeLessThan(-700);
  });

  it('symmetric in rows and columns', () => {
    expect(fisherExact(1, 9, 11, 3).p).toBeCloseTo(fisherExact(11, 3, 1, 9).p, 12);
    expect(fisherExact(1, 9, 11, 3).p).toBeCloseTo(fisherExact(1, 11, 9, 3).p, 12);
  });

  it('refuses counts that are not non-negative integers', () => {
    expect(() => fisherExact(-1, 2, 3, 4)).toThrow(/non-negative integers/);
    expect(() => fisherExact(1.5, 2, 3, 4)).toThrow(/non-negative integers/);
  });
});

describe('two-proportion z-test', () => {
  it('45/100 against 30/100: z² = 4.8 (prop.test without correction), p = 0.02846', () => {
    const r = twoProportionZ(45, 100, 30, 100);
    expect(r.z * r.z).toBeCloseTo(4.8, 10);
    expect(r.p).toBeCloseTo(0.028459, 5);
  });

  it('equal rates: z = 0, p = 1; empty sample: p = 1', () => {
    expect(twoProportionZ(10, 100, 10, 100)).toEqual({ z: 0, p: 1 });
    expect(twoProportionZ(0, 0, 3, 10).p).toBe(1);
  });
});

describe('compareRates', () => {
  it('uses Fisher up to FISHER_MAX_CALLS, the z-test above', () => {
    const small = compareRates({ failures: 9, calls: 2310 }, { failures: 156, calls: 1980 });
    expect(small.test).toBe('fisher');
    expect(small.before).toBeCloseTo(9 / 2310, 12);
    expect(small.after).toBeCloseTo(156 / 1980, 12);
    expect(small.p).toBeLessThan(1e-6);
    const big = compareRates({ failures: 500, calls: FISHER_MAX_CALLS }, { failures: 520, calls: FISHER_MAX_CALLS });
    expect(big.test).toBe('z');
    expect(big.p).toBeGreaterThan(0.5);
  });

  it('formats p as printed', () => {
    expect(formatP(1e-9)).toBe('p < 1e-6');
    expect(formatP(0.002759)).toBe('p = 0.0028');
    expect(formatP(0.4857)).toBe('p = 0.49');
  });
});
