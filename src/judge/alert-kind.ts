/**
 * Alert rule kind `judge_goal_rate`: the sampling-weighted reached_goal rate over the judge's last
 * `runs` runs (that judged anything) is below `threshold`, once `min_verdicts` verdicts are in.
 * Per service, or for one `service`. When the judge is uncalibrated (κ, see calibration.ts) the
 * alert still reads, but says so in its summary and details.
 *
 * evaluate() is pure; load() reads the judge's store through the evaluator's RuleIO (`io.judge`,
 * present when the services run a judge).
 */
import { pct, type Observation, type RuleKind } from '../alerts/rules.js';
import { verdictRates, type Calibration } from './calibration.js';
import type { JudgeStore, VerdictPoint } from './store.js';

export interface JudgeGoalRateParams {
  runs: number;
  threshold: number;
  min_verdicts: number;
  service?: string;
}

export interface JudgeGoalRateData {
  points: VerdictPoint[];
  calibration: Pick<Calibration, 'calibrated' | 'fields'> | null;
}

export interface JudgeRuleSource {
  store: JudgeStore;
  calibration(): Promise<Calibration>;
}

export function evaluateJudgeGoalRate(p: JudgeGoalRateParams, data: JudgeGoalRateData): Observation[] {
  const byService = new Map<string, VerdictPoint[]>();
  for (const pt of data.points) if (!p.service || pt.service === p.service) byService.set(pt.service, [...(byService.get(pt.service) ?? []), pt]);
  const kappa = data.calibration?.fields.find((f) => f.field === 'reached_goal');
  const uncalibrated = !data.calibration?.calibrated;
  const note = uncalibrated ? ` — judge uncalibrated (κ ${kappa?.kappa === null || kappa?.kappa === undefined ? 'n/a' : kappa.kappa.toFixed(2)}, n=${kappa?.n ?? 0})` : '';
  return [...byService].map(([service, pts]) => {
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
      details: { verdicts: pts.length, effectiveN: r.effectiveN, ci95: r.reachedGoal.ci95, calibrated: !uncalibrated, kappa: kappa?.kappa ?? null, kappaN: kappa?.n ?? 0 },
    };
  });
}

export const judgeGoalRate: RuleKind<JudgeGoalRateParams, JudgeGoalRateData> = {
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      runs: { type: 'integer', minimum: 1, maximum: 168, default: 3 },
      threshold: { type: 'number', minimum: 0, maximum: 1, default: 0.8 },
      min_verdicts: { type: 'integer', minimum: 1, default: 20 },
      service: { type: 'string', minLength: 1 },
    },
  },
  async load(p, io) {
    const source = io.judge;
    if (!source) return { points: [], calibration: null };
    const runs = (await source.store.runs(p.runs * 10)).filter((r) => r.judged > 0).slice(0, p.runs);
    const points = await source.store.verdictPoints({ runIds: runs.map((r) => r.id), ...(p.service ? { service: p.service } : {}) });
    return { points, calibration: await source.calibration() };
  },
  evaluate: (p, data) => evaluateJudgeGoalRate(p, data),
};
