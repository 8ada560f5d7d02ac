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
 * - Means that are not proportions — unnecessary calls per trajectory, agent tokens per success —
 *   are ratios of weighted totals R = Σw·y / Σw·x (x = 1 for a mean, x = reached_goal for per
 *   success). Their 95% interval is R ± 1.96·SE with the linearization (delta-method) variance
 *   SE² = n/(n−1) · Σ (w·(y − R·x))² / (Σw·x)², the survey-sampling standard for a ratio under
 *   unequal weights: Wilson's interval needs a proportion, and a bootstrap would make the same data
 *   give different intervals. With few verdicts the normal approximation is rough: n is reported.
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

const asBinary = (field: KappaField, v: LabelPair['judge']): boolean =>
  field === 'reached_goal' ? v.reached_goal : v[field] > 0;

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
    const reason =
      n < minLabels
        ? 'too_few_labels'
        : kappa === null
          ? 'undefined_kappa'
          : kappa < minKappa
            ? 'low_kappa'
            : undefined;
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
  /** Σw·unnecessary_calls / Σw, with its interval. */
  unnecessaryCallsPerTrajectory: RatioEstimate;
  /** Σw·agent tokens / Σw·reached_goal over verdicts whose trajectory reported tokens, with its interval. */
  tokensPerSuccess: RatioEstimate;
}

export interface RatioEstimate {
  value: number | null;
  /** Linearization 95% interval (lower bound clamped at 0); null with fewer than 2 items or nothing in the denominator. */
  ci95: { low: number; high: number } | null;
  /** Items the estimate is over. */
  n: number;
}

/** R = Σw·y / Σw·x with its linearization 95% interval (see the header). */
export function weightedRatio(items: readonly { w: number; y: number; x: number }[], z = 1.96): RatioEstimate {
  let sy = 0;
  let sx = 0;
  for (const it of items) (sy += it.w * it.y), (sx += it.w * it.x);
  const n = items.length;
  if (sx <= 0) return { value: null, ci95: null, n };
  const r = sy / sx;
  if (n < 2) return { value: r, ci95: null, n };
  let ss = 0;
  for (const it of items) ss += (it.w * (it.y - r * it.x)) ** 2;
  const se = Math.sqrt((n / (n - 1)) * ss) / sx;
  return { value: r, ci95: { low: Math.max(0, r - z * se), high: r + z * se }, n };
}

/** A verdict's weight; one recorded without a positive weight counts once. */
const weightOfPoint = (p: VerdictPoint): number => (p.weight > 0 ? p.weight : 1);

export function verdictRates(points: readonly VerdictPoint[]): VerdictRates {
  let sw = 0;
  let sw2 = 0;
  const sums = { goal: 0, unn: 0, dang: 0, unnCount: 0, dangCount: 0 };
  for (const p of points) {
    const w = weightOfPoint(p);
    sw += w;
    sw2 += w * w;
    if (p.reachedGoal) sums.goal += w;
    if (p.unnecessaryCalls > 0) sums.unn += w;
    if (p.dangerousCalls > 0) sums.dang += w;
    sums.unnCount += w * p.unnecessaryCalls;
    sums.dangCount += w * p.dangerousCalls;
  }
  const effectiveN = sw2 > 0 ? (sw * sw) / sw2 : 0;
  const rate = (s: number): WeightedRate =>
    sw > 0 ? { rate: s / sw, ci95: wilson(s / sw, effectiveN) } : { rate: null, ci95: null };
  return {
    n: points.length,
    effectiveN,
    reachedGoal: rate(sums.goal),
    withUnnecessaryCalls: rate(sums.unn),
    withDangerousCalls: rate(sums.dang),
    meanUnnecessaryCalls: sw > 0 ? sums.unnCount / sw : null,
    meanDangerousCalls: sw > 0 ? sums.dangCount / sw : null,
    unnecessaryCallsPerTrajectory: weightedRatio(
      points.map((p) => ({ w: weightOfPoint(p), y: p.unnecessaryCalls, x: 1 })),
    ),
    tokensPerSuccess: weightedRatio(
      points.flatMap((p) =>
        p.agentTokens === null || p.agentTokens === undefined
          ? []
          : [{ w: weightOfPoint(p), y: p.agentTokens, x: p.reachedGoal ? 1 : 0 }],
      ),
    ),
  };
}
