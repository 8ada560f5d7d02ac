/**
 * The judge's part of report.json: per model the judge-based rates (each with κ and n, calibrated
 * or not) and the judge gates (applied to calibrated rates only), and for the report the judge's
 * manifest, its calibration and its own tokens and cost — apart from the candidates'.
 */
import type { JudgeUsage } from './judge-run.js';
import {
  calibrateJudge,
  checkJudgeGates,
  type JudgeCalibration,
  type JudgeGateResult,
  judgeMetrics,
  type JudgeMetrics,
  type Label,
  type LabelledSlot,
} from './judge-score.js';
import type { EvalJudgeSettings } from './judge-settings.js';
import type { ModelReport, ReportJudge } from './report.js';
import type { CaseEvals } from './score.js';

export interface ModelJudge {
  metrics?: JudgeMetrics;
  gates: JudgeGateResult[];
}

export interface JudgeReport {
  provider: string;
  model: string;
  baseUrl: string;
  promptVersion: string;
  temperature: number;
  minKappa: number;
  minLabels: number;
  /** Where κ came from: labels (labels.jsonl against these observations) or file (eval calibrate --out). */
  calibrationSource: 'labels' | 'file' | 'none';
  calibration: JudgeCalibration;
  usage: JudgeUsage;
  warnings: string[];
}

export interface JudgeReportInputs {
  settings: EvalJudgeSettings;
  labels: readonly Label[];
  /** A calibration measured before (eval calibrate --out); used when it is of the same judge and prompt. */
  calibration?: JudgeCalibration;
  usage: JudgeUsage;
  warnings: string[];
  lookup?: ReportJudge['lookup'];
}

/** Every labelled-able judge slot of a report, with the observation it belongs to. */
export function slotsOf(models: readonly ModelReport[], items: Map<string, CaseEvals[]>): LabelledSlot[] {
  const out: LabelledSlot[] = [];
  for (const m of models) {
    for (const i of items.get(m.key) ?? []) {
      for (const e of i.evals)
        if (e.judge) out.push({ model: m.label, variant: m.variant, caseId: e.caseId, repeat: e.repeat, slot: e.judge });
    }
  }
  return out;
}

export function reportJudge(inp: JudgeReportInputs): ReportJudge {
  const s = inp.settings;
  return {
    ...(inp.lookup ? { lookup: inp.lookup } : {}),
    finish(models, items) {
      const same =
        inp.calibration && inp.calibration.judgeModel === s.model && inp.calibration.promptVersion === s.promptVersion;
      const warnings = [...inp.warnings];
      if (inp.calibration && !same)
        warnings.push(
          `calibration file is of judge ${inp.calibration.judgeModel} (prompt ${inp.calibration.promptVersion}), not ${s.model} (${s.promptVersion}): not used`,
        );
      const calibration = same
        ? inp.calibration!
        : calibrateJudge(inp.labels, slotsOf(models, items), {
            judgeModel: s.model,
            promptVersion: s.promptVersion,
            minKappa: s.minKappa,
            minLabels: s.minLabels,
          });
      for (const m of models) {
        const evals = (items.get(m.key) ?? []).flatMap((i) => i.evals);
        const metrics = judgeMetrics(evals, calibration);
        // Gates apply to the core variant, as the deterministic ones do.
        const gates = m.variant === 'core' ? checkJudgeGates(metrics, s.gates) : [];
        m.judge = { ...(metrics ? { metrics } : {}), gates };
        if (gates.some((g) => g.status === 'failed')) m.passed = false;
      }
      return {
        provider: s.provider,
        model: s.model,
        baseUrl: s.baseUrl,
        promptVersion: s.promptVersion,
        temperature: s.temperature,
        minKappa: s.minKappa,
        minLabels: s.minLabels,
        calibrationSource: same ? 'file' : inp.labels.length ? 'labels' : 'none',
        calibration,
        usage: inp.usage,
        warnings,
      };
    },
  };
}
