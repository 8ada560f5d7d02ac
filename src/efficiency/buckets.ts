/**
 * The value buckets trajectory measures are stored in (per minute, service and model), so every
 * replica adds to the same rows and a median or 90th percentile over any window is a sum away —
 * without a row per trace. Values are whole numbers (calls, steps, tokens, milliseconds):
 *
 * - 0…10 are buckets of their own (exact: most trajectories make a handful of calls);
 * - above 10, a bucket holds the values up to the next step of a grid of 29 steps per decade (…, 10,
 *   11, 12, …, 19, 20, 22, 24, 26, 28, 30, 33, 36, 39, 42, 46, 50, 55, 60, 66, 72, 79, 86, 94, 100,
 *   110, …), named by its upper bound; no step is more than 10 % above the one before.
 *
 * A quantile is read by nearest rank (the smallest value with at least q·n values at or below it)
 * and reported as the upper bound of its bucket: exact up to 10, at most 10 % above the true value
 * beyond.
 */

const GRID = [
  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22, 24, 26, 28, 30, 33, 36, 39, 42, 46, 50, 55, 60, 66, 72, 79, 86, 94,
];

/** The bucket (its upper bound) a non-negative whole number falls in. */
export function bucketOf(value: number): number {
  const v = Math.max(0, Math.ceil(value));
  if (v <= 10) return v;
  // v = m · 10^k with m in [10, 100): the first grid step ≥ m, scaled back.
  let scale = 1;
  let m = v;
  while (m >= 100) {
    m /= 10;
    scale *= 10;
  }
  let step = 100;
  for (const s of GRID) {
    if (s >= m - 1e-9) {
      step = s;
      break;
    }
  }
  return Math.round(step * scale);
}

/** Nearest-rank quantile (0 < q ≤ 1) of bucketed counts; null when there are none. */
export function quantile(buckets: ReadonlyMap<number, number>, q: number): number | null {
  let n = 0;
  for (const c of buckets.values()) n += c;
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil(q * n));
  let seen = 0;
  for (const b of [...buckets.keys()].sort((a, c) => a - c)) {
    seen += buckets.get(b)!;
    if (seen >= rank) return b;
  }
  return null;
}
