/**
 * How far to trust the judge, and what its verdicts say. Pure.
 *
 * - Cohen's κ per field between judge and human on trajectories that have both:
 *   κ = (p_o − p_e) / (1 − p_e), p_o the observed agreement, p_e the agreement expected by chance
 *   from each rater's marginals. Fields: reached_goal, unnecessary_calls > 0, dangerous_calls > 0.
 * - The judge is calibrated when every field has n ≥ min_labels and κ ≥ min_kappa.
 * - Verdict rates are inverse-probability weighted (Hájek: Σw·y / Σw, w = 1/p) so a higher
 *   failed_rate does not inflate failure-looking verdicts, with a Wilson 95% interval over the
 *   Kish effective sample size n_eff = (Σw)² / Σw².
 */
import type { LabelPair, VerdictPoint } from './store.js';

export const KAPPA_FIELDS = ['reached_goal', 'unnecessary_calls', 'dangerous_calls'] as const;
export type KappaField = (typeof KAPPA_FIELDS)[number];

/** κ for two raters' binary judgements; null when undefined (no items, or chance agreement is 1). */
export function cohensKappa(pairs: readonly (readonly [boolean, boolean])[]): number | null {
  const n = pairs.length;
  if (n === 0) return null;
  let agree = 0;
  let aYes = 0;
  let bYes = 0;
  for (const [a, b] of pairs) {
    if (a === b) agree++;
    if (a) aYes++;
    if (b) bYes++;
  }
  const po = agree / n;
  const pe = (aYes / n) * (bYes / n) + (1 - aYes / n) * (1 - bYes / n);
  if (pe >= 1) return null;
  return (po - pe) / (1 - pe);
}

const asBinary = (field: KappaField, v: LabelPair['judge']): boolean => (field === 'reached_goal' ? v.reached_goal : v[field] > 0);

export interface FieldCalibration {
  field: KappaField;
  n: number;
  kappa: number | null;
  calibrated: boolean;
  /** Why not: too_few_labels | low_kappa | undefined_kappa. */
  reason?: string;
}

export interface Calibration {
  calibrated: boolean;
  minKappa: number;
  minLabels: number;
  fields: FieldCalibration[];
}

export function calibrate(pairs: readonly LabelPair[], minKappa: number, minLabels: number): Calibration {
  const fields = KAPPA_FIELDS.map((field): FieldCalibration => {
    const kappa = cohensKappa(pairs.map((p) => [asBinary(field, p.judge), asBinary(field, p.human)] as const));
    const n = pairs.length;
    const reason = n < minLabels ? 'too_few_labels' : kappa === null ? 'undefined_kappa' : kappa < minKappa ? 'low_kappa' : undefined;
    return { field, n, kappa, calibrated: reason === undefined, ...(reason ? { reason } : {}) };
  });
  return { calibrated: fields.every((f) => f.calibrated), minKappa, minLabels, fields };
}

/** Wilson score interval for a proportion p over n trials (z = 1.96 → 95%). */
export function wilson(p: number, n: number, z = 1.96): { low: number; high: number } | null {
  if (n <= 0) return null;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface WeightedRate {
  rate: number | null;
  ci95: { low: number; high: number } | null;
}

export interface VerdictRates {
  n: number;
  effectiveN: number;
  reachedGoal: WeightedRate;
  withUnnecessaryCalls: WeightedRate;
  withDangerousCalls: WeightedRate;
  /** Weighted mean count per trajectory. */
  meanUnnecessaryCalls: number | null;
  meanDangerousCalls: number | null;
}

export function verdictRates(points: readonly VerdictPoint[]): VerdictRates {
  let sw = 0;
  let sw2 = 0;
  const sums = { goal: 0, unn: 0, dang: 0, unnCount: 0, dangCount: 0 };
  for (const p of points) {
    const w = p.weight > 0 ? p.weight : 1;
    sw += w;
    sw2 += w * w;
    if (p.reachedGoal) sums.goal += w;
    if (p.unnecessaryCalls > 0) sums.unn += w;
    if (p.dangerousCalls > 0) sums.dang += w;
    sums.unnCount += w * p.unnecessaryCalls;
    sums.dangCount += w * p.dangerousCalls;
  }
  const effectiveN = sw2 > 0 ? (sw * sw) / sw2 : 0;
  const rate = (s: number): WeightedRate => (sw > 0 ? { rate: s / sw, ci95: wilson(s / sw, effectiveN) } : { rate: null, ci95: null });
  return {
    n: points.length,
    effectiveN,
    reachedGoal: rate(sums.goal),
    withUnnecessaryCalls: rate(sums.unn),
    withDangerousCalls: rate(sums.dang),
    meanUnnecessaryCalls: sw > 0 ? sums.unnCount / sw : null,
    meanDangerousCalls: sw > 0 ? sums.dangCount / sw : null,
  };
}
