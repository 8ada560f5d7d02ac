/**
 * Alert rule kinds over the judge's verdicts, per service (or for one `service`), over its last
 * `runs` runs that judged anything, once `min_verdicts` verdicts are in:
 * - `judge_goal_rate`: the sampling-weighted reached_goal rate is below `threshold`;
 * - `judge_unnecessary_calls`: the weighted mean of unnecessary calls per trajectory is above
 *   `threshold` (the judge's second trend: an agent reaching its goal in 12 calls instead of 3).
 * When the judge is uncalibrated (κ of the field, see calibration.ts) the alert still reads, but
 * says so in its summary and details.
 *
 * evaluate() is pure; load() reads the judge's store through the evaluator's RuleIO (`io.judge`,
 * present when the services run a judge): the judge adds that source to alerts' RuleSources below.
 */
import { pct } from '../alerts/rules.js';
import { verdictRates } from './calibration.js';
function byService(p, points) {
    const out = new Map();
    for (const pt of points)
        if (!p.service || pt.service === p.service)
            out.set(pt.service, [...(out.get(pt.service) ?? []), pt]);
    return out;
}
/** What the summary says about calibration, and the κ of the field the rule reads. */
function calibrationNote(data, field) {
    const kappa = data.calibration?.fields.find((f) => f.field === field);
    const uncalibrated = !data.calibration?.calibrated;
    const note = uncalibrated
        ? ` — judge uncalibrated (κ ${kappa?.kappa === null || kappa?.kappa === undefined ? 'n/a' : kappa.kappa.toFixed(2)}, n=${kappa?.n ?? 0})`
        : '';
    return { note, uncalibrated, kappa };
}
export function evaluateJudgeGoalRate(p, data) {
    const { note, uncalibrated, kappa } = calibrationNote(data, 'reached_goal');
    return [...byService(p, data.points)].map(([service, pts]) => {
        const r = verdictRates(pts);
        const rate = r.reachedGoal.rate ?? 1;
        const enough = pts.length >= p.min_verdicts;
        return {
            labels: { service },
            active: enough && rate < p.threshold,
            value: rate,
            threshold: p.threshold,
            summary: enough
                ? `judge reached_goal rate ${pct(rate)} ${rate < p.threshold ? '<' : '≥'} ${pct(p.threshold)} (${pts.length} verdicts, last ${p.runs} runs)${note}`
                : `only ${pts.length} judge verdicts in the last ${p.runs} runs (min_verdicts ${p.min_verdicts})${note}`,
            details: {
                verdicts: pts.length,
                effectiveN: r.effectiveN,
                ci95: r.reachedGoal.ci95,
                calibrated: !uncalibrated,
                kappa: kappa?.kappa ?? null,
                kappaN: kappa?.n ?? 0,
            },
        };
    });
}
const fmt = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(2));
export function evaluateJudgeUnnecessaryCalls(p, data) {
    const { note, uncalibrated, kappa } = calibrationNote(data, 'unnecessary_calls');
    return [...byService(p, data.points)].map(([service, pts]) => {
        const r = verdictRates(pts).unnecessaryCallsPerTrajectory;
        const mean = r.value ?? 0;
        const enough = pts.length >= p.min_verdicts;
        const ci = r.ci95 ? `, 95% CI ${fmt(r.ci95.low)}–${fmt(r.ci95.high)}` : '';
        return {
            labels: { service },
            active: enough && mean > p.threshold,
            value: mean,
            threshold: p.threshold,
            summary: enough
                ? `judge: ${fmt(mean)} unnecessary calls per trajectory ${mean > p.threshold ? '>' : '≤'} ${fmt(p.threshold)} (${pts.length} verdicts, last ${p.runs} runs${ci})${note}`
                : `only ${pts.length} judge verdicts in the last ${p.runs} runs (min_verdicts ${p.min_verdicts})${note}`,
            details: {
                verdicts: pts.length,
                ci95: r.ci95,
                calibrated: !uncalibrated,
                kappa: kappa?.kappa ?? null,
                kappaN: kappa?.n ?? 0,
            },
        };
    });
}
/** Verdicts of the last `runs` runs that judged something (for one service, when given). */
async function lastRuns(p, io) {
    const source = io.judge;
    if (!source)
        return { points: [], calibration: null };
    const runs = (await source.store.verdicts.runs(p.runs * 10)).filter((r) => r.judged > 0).slice(0, p.runs);
    const points = await source.store.verdicts.verdictPoints({
        runIds: runs.map((r) => r.id),
        ...(p.service ? { service: p.service } : {}),
    });
    return { points, calibration: await source.calibration() };
}
const runsKeys = {
    runs: { type: 'integer', minimum: 1, maximum: 168, default: 3 },
    min_verdicts: { type: 'integer', minimum: 1, default: 20 },
    service: { type: 'string', minLength: 1 },
};
export const judgeGoalRate = {
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: { ...runsKeys, threshold: { type: 'number', minimum: 0, maximum: 1, default: 0.8 } },
    },
    load: (p, io) => lastRuns(p, io),
    evaluate: (p, data) => evaluateJudgeGoalRate(p, data),
};
export const judgeUnnecessaryCalls = {
    schema: {
        type: 'object',
        additionalProperties: false,
        properties: { ...runsKeys, threshold: { type: 'number', minimum: 0, default: 1 } },
    },
    load: (p, io) => lastRuns(p, io),
    evaluate: (p, data) => evaluateJudgeUnnecessaryCalls(p, data),
};
//# sourceMappingURL=alert-kind.js.map