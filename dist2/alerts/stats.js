/**
 * The statistics the drift rules need, as plain functions (no dependency: the whole of it is a
 * gamma function, its regularized incomplete forms, and three formulas on top).
 *
 * - chi-square test of homogeneity (is the tool mix of two windows the same distribution?)
 * - Jensen–Shannon distance, base 2 (how far apart are they? 0 = identical, 1 = disjoint)
 * - two-proportion z-test (did the error rate rise beyond what chance explains?)
 */
/** ln Γ(x) for x > 0: Lanczos approximation (g = 7, n = 9), ~15 significant digits. */
export function logGamma(x) {
    if (x < 0.5)
        return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x); // reflection
    const c = [
        0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
        12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
    ];
    const z = x - 1;
    let a = c[0];
    const t = z + 7.5;
    for (let i = 1; i < 9; i++)
        a += c[i] / (z + i);
    return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}
const EPS = 1e-15;
const TINY = 1e-300;
const MAX_ITER = 10_000;
/**
 * Regularized incomplete gamma functions P(a, x) = γ(a, x)/Γ(a) and Q(a, x) = 1 − P(a, x).
 * The series converges fast for x < a + 1, the continued fraction (modified Lentz) otherwise;
 * computing the small one directly keeps tiny p-values accurate instead of 1 − 0.9999….
 */
export function gammaP(a, x) {
    if (!(a > 0) || !(x >= 0))
        return Number.NaN;
    if (x === 0)
        return 0;
    return x < a + 1 ? gammaSeries(a, x) : 1 - gammaContinuedFraction(a, x);
}
export function gammaQ(a, x) {
    if (!(a > 0) || !(x >= 0))
        return Number.NaN;
    if (x === 0)
        return 1;
    return x < a + 1 ? 1 - gammaSeries(a, x) : gammaContinuedFraction(a, x);
}
function gammaSeries(a, x) {
    let ap = a;
    let sum = 1 / a;
    let del = sum;
    for (let n = 0; n < MAX_ITER; n++) {
        ap += 1;
        del *= x / ap;
        sum += del;
        if (Math.abs(del) < Math.abs(sum) * EPS)
            break;
    }
    return sum * Math.exp(-x + a * Math.log(x) - logGamma(a));
}
function gammaContinuedFraction(a, x) {
    let b = x + 1 - a;
    let c = 1 / TINY;
    let d = 1 / b;
    let h = d;
    for (let i = 1; i < MAX_ITER; i++) {
        const an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (Math.abs(d) < TINY)
            d = TINY;
        c = b + an / c;
        if (Math.abs(c) < TINY)
            c = TINY;
        d = 1 / d;
        const del = d * c;
        h *= del;
        if (Math.abs(del - 1) < EPS)
            break;
    }
    return Math.exp(-x + a * Math.log(x) - logGamma(a)) * h;
}
/** P(X ≥ x) for X ~ χ²(df). */
export function chiSquareSurvival(x, df) {
    if (x <= 0)
        return 1;
    return gammaQ(df / 2, x / 2);
}
/** erfc via the incomplete gamma function: erf(x) = P(1/2, x²) for x ≥ 0. */
export function erfc(x) {
    if (Number.isNaN(x))
        return Number.NaN;
    return x >= 0 ? gammaQ(0.5, x * x) : 2 - gammaQ(0.5, x * x);
}
/** Φ(z), the standard normal CDF. */
export function normalCdf(z) {
    return 0.5 * erfc(-z / Math.SQRT2);
}
/**
 * Chi-square test of homogeneity for an r×k table of counts (rows = samples, columns =
 * categories). Columns that are empty in every row carry no information and are dropped (they
 * would give 0/0 expected cells). Fewer than two non-empty rows or columns: nothing to test,
 * statistic 0 and p = 1.
 */
export function chiSquareHomogeneity(table) {
    const rows = table.filter((r) => r.reduce((s, v) => s + v, 0) > 0);
    const k = rows[0]?.length ?? 0;
    const colSums = Array.from({ length: k }, (_, j) => rows.reduce((s, r) => s + (r[j] ?? 0), 0));
    const cols = colSums.map((s, j) => (s > 0 ? j : -1)).filter((j) => j >= 0);
    if (rows.length < 2 || cols.length < 2)
        return { statistic: 0, df: 0, pValue: 1 };
    const rowSums = rows.map((r) => cols.reduce((s, j) => s + (r[j] ?? 0), 0));
    const n = rowSums.reduce((s, v) => s + v, 0);
    let statistic = 0;
    rows.forEach((r, i) => {
        for (const j of cols) {
            const expected = (rowSums[i] * colSums[j]) / n;
            const diff = (r[j] ?? 0) - expected;
            statistic += (diff * diff) / expected;
        }
    });
    const df = (rows.length - 1) * (cols.length - 1);
    return { statistic, df, pValue: chiSquareSurvival(statistic, df) };
}
/** Counts (or weights) → a probability distribution; all zeros stays all zeros. */
export function normalize(counts) {
    const total = counts.reduce((s, v) => s + v, 0);
    return total > 0 ? counts.map((v) => v / total) : counts.map(() => 0);
}
/**
 * Jensen–Shannon distance with base-2 logarithms: sqrt(JSD(p‖q)), in [0, 1]. The inputs are
 * normalized first, so raw counts are fine. It is a metric (unlike KL divergence) and finite when
 * a category is missing on one side — a tool that appeared or vanished is exactly what drift is.
 */
export function jensenShannonDistance(p, q) {
    const pn = normalize(p);
    const qn = normalize(q);
    let js = 0;
    for (let i = 0; i < Math.max(pn.length, qn.length); i++) {
        const a = pn[i] ?? 0;
        const b = qn[i] ?? 0;
        const m = (a + b) / 2;
        if (a > 0)
            js += 0.5 * a * Math.log2(a / m);
        if (b > 0)
            js += 0.5 * b * Math.log2(b / m);
    }
    return Math.sqrt(Math.max(0, Math.min(1, js)));
}
/**
 * Two-proportion z-test with the pooled standard error: x1 successes in n1 trials against x2 in
 * n2. Undefined (z = 0, p = 1) when either sample is empty or the pooled proportion is 0 or 1.
 */
export function twoProportionZTest(x1, n1, x2, n2) {
    if (n1 <= 0 || n2 <= 0)
        return { z: 0, pGreater: 1, pTwoSided: 1 };
    const pooled = (x1 + x2) / (n1 + n2);
    const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
    if (!(se > 0))
        return { z: 0, pGreater: 1, pTwoSided: 1 };
    const z = (x1 / n1 - x2 / n2) / se;
    return { z, pGreater: 0.5 * erfc(z / Math.SQRT2), pTwoSided: erfc(Math.abs(z) / Math.SQRT2) };
}
//# sourceMappingURL=stats.js.map