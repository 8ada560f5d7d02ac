/**
 * Did a tool's failure rate really move when something changed, or is it chance? The two tests
 * attribution prints beside a before/after rate, as plain functions:
 * - Fisher's exact test (two-sided), exact at any size: each table's hypergeometric probability is
 *   taken in log space (ln Γ), so tables of tens of thousands of calls neither overflow nor lose the
 *   tiny p-values a real regression has;
 * - the two-proportion z-test (pooled), for tables too large for the exact sum to be worth its cost.
 * The z-test and ln Γ are the drift rules' own (src/alerts/stats.ts), reused so both agree.
 */
import { logGamma, twoProportionZTest } from '../alerts/stats.js';
const logFactorial = (n) => logGamma(n + 1);
const logChoose = (n, k) => logFactorial(n) - logFactorial(k) - logFactorial(n - k);
/**
 * Two tables are "as extreme" when their probabilities are equal up to this relative error — the
 * tolerance R's fisher.test uses, so floating-point noise does not drop a tied table from the sum.
 */
const LOG_TIE = Math.log1p(1e-7);
/**
 * Fisher's exact test on the 2×2 table [[a, b], [c, d]] (e.g. a = failures before, b = successes
 * before, c = failures after, d = successes after). Counts must be non-negative integers; an empty
 * table, or one whose margins admit a single table, has p = 1.
 */
export function fisherExact(a, b, c, d) {
    for (const x of [a, b, c, d]) {
        if (!Number.isInteger(x) || x < 0)
            throw new RangeError(`fisherExact: counts must be non-negative integers, got ${x}`);
    }
    const row1 = a + b;
    const row2 = c + d;
    const col1 = a + c;
    const n = row1 + row2;
    const logDenominator = logChoose(n, col1);
    const logProb = (x) => logChoose(row1, x) + logChoose(row2, col1 - x) - logDenominator;
    const observed = logProb(a);
    const lo = Math.max(0, col1 - row2);
    const hi = Math.min(row1, col1);
    // log-sum-exp over the tables no likelier than the observed one, scaled by the largest term.
    const terms = [];
    for (let x = lo; x <= hi; x++) {
        const lp = logProb(x);
        if (lp <= observed + LOG_TIE)
            terms.push(lp);
    }
    const max = Math.max(...terms);
    let sum = 0;
    for (const t of terms)
        sum += Math.exp(t - max);
    const logP = Math.min(0, max + Math.log(sum));
    return { p: Math.exp(logP), logP };
}
/** Two-proportion z-test (pooled standard error): x1 of n1 against x2 of n2, two-sided. */
export function twoProportionZ(x1, n1, x2, n2) {
    const r = twoProportionZTest(x1, n1, x2, n2);
    return { z: r.z, p: r.pTwoSided };
}
/**
 * Above this many calls in both windows together the z-test is used: the exact sum costs one term
 * per possible table, and at this size the normal approximation is as good as the counts are.
 */
export const FISHER_MAX_CALLS = 100_000;
/** Before and after rates and the p-value of their difference (Fisher's exact test when affordable). */
export function compareRates(before, after) {
    const rate = (r) => (r.calls > 0 ? r.failures / r.calls : 0);
    const base = { before: rate(before), after: rate(after) };
    if (before.calls + after.calls <= FISHER_MAX_CALLS) {
        const { p } = fisherExact(before.failures, before.calls - before.failures, after.failures, after.calls - after.failures);
        return { test: 'fisher', ...base, p };
    }
    return { test: 'z', ...base, p: twoProportionZ(before.failures, before.calls, after.failures, after.calls).p };
}
/** A p-value as printed: two significant digits, and "< 1e-6" below that (the counts never carry more). */
export function formatP(p) {
    if (p < 1e-6)
        return 'p < 1e-6';
    if (p >= 0.01)
        return `p = ${p.toFixed(2)}`;
    return `p = ${p.toPrecision(2)}`;
}
//# sourceMappingURL=stats.js.map