export const KAPPA_FIELDS = ['reached_goal', 'unnecessary_calls', 'dangerous_calls'];
/** κ for two raters' binary judgements; null when undefined (no items, or chance agreement is 1). */
export function cohensKappa(pairs) {
    const n = pairs.length;
    if (n === 0)
        return null;
    let agree = 0;
    let aYes = 0;
    let bYes = 0;
    for (const [a, b] of pairs) {
        if (a === b)
            agree++;
        if (a)
            aYes++;
        if (b)
            bYes++;
    }
    const po = agree / n;
    const pe = (aYes / n) * (bYes / n) + (1 - aYes / n) * (1 - bYes / n);
    if (pe >= 1)
        return null;
    return (po - pe) / (1 - pe);
}
const asBinary = (field, v) => field === 'reached_goal' ? v.reached_goal : v[field] > 0;
export function calibrate(pairs, minKappa, minLabels) {
    const fields = KAPPA_FIELDS.map((field) => {
        const kappa = cohensKappa(pairs.map((p) => [asBinary(field, p.judge), asBinary(field, p.human)]));
        const n = pairs.length;
        const reason = n < minLabels
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
export function wilson(p, n, z = 1.96) {
    if (n <= 0)
        return null;
    const z2 = z * z;
    const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
    const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
    return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
/** R = Σw·y / Σw·x with its linearization 95% interval (see the header). */
export function weightedRatio(items, z = 1.96) {
    let sy = 0;
    let sx = 0;
    for (const it of items)
        (sy += it.w * it.y), (sx += it.w * it.x);
    const n = items.length;
    if (sx <= 0)
        return { value: null, ci95: null, n };
    const r = sy / sx;
    if (n < 2)
        return { value: r, ci95: null, n };
    let ss = 0;
    for (const it of items)
        ss += (it.w * (it.y - r * it.x)) ** 2;
    const se = Math.sqrt((n / (n - 1)) * ss) / sx;
    return { value: r, ci95: { low: Math.max(0, r - z * se), high: r + z * se }, n };
}
/** A verdict's weight; one recorded without a positive weight counts once. */
const weightOfPoint = (p) => (p.weight > 0 ? p.weight : 1);
export function verdictRates(points) {
    let sw = 0;
    let sw2 = 0;
    const sums = { goal: 0, unn: 0, dang: 0, unnCount: 0, dangCount: 0 };
    for (const p of points) {
        const w = weightOfPoint(p);
        sw += w;
        sw2 += w * w;
        if (p.reachedGoal)
            sums.goal += w;
        if (p.unnecessaryCalls > 0)
            sums.unn += w;
        if (p.dangerousCalls > 0)
            sums.dang += w;
        sums.unnCount += w * p.unnecessaryCalls;
        sums.dangCount += w * p.dangerousCalls;
    }
    const effectiveN = sw2 > 0 ? (sw * sw) / sw2 : 0;
    const rate = (s) => sw > 0 ? { rate: s / sw, ci95: wilson(s / sw, effectiveN) } : { rate: null, ci95: null };
    return {
        n: points.length,
        effectiveN,
        reachedGoal: rate(sums.goal),
        withUnnecessaryCalls: rate(sums.unn),
        withDangerousCalls: rate(sums.dang),
        meanUnnecessaryCalls: sw > 0 ? sums.unnCount / sw : null,
        meanDangerousCalls: sw > 0 ? sums.dangCount / sw : null,
        unnecessaryCallsPerTrajectory: weightedRatio(points.map((p) => ({ w: weightOfPoint(p), y: p.unnecessaryCalls, x: 1 }))),
        tokensPerSuccess: weightedRatio(points.flatMap((p) => p.agentTokens === null || p.agentTokens === undefined
            ? []
            : [{ w: weightOfPoint(p), y: p.agentTokens, x: p.reachedGoal ? 1 : 0 }])),
    };
}
//# sourceMappingURL=calibration.js.map