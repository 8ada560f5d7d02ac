/**
 * Gates: minimum values of report rates (suite.yaml `gates`, snake_case names) and the largest
 * allowed drop against a baseline, in percentage points. Defaults: selection accuracy ≥ 0.95, strict
 * pass rate ≥ 0.85, argument accuracy ≥ 0.90, no gated rate down by more than 2 pp.
 * A gate whose rate has no denominator in this suite (e.g. no argument checks) is skipped, not passed.
 */
import type { Metrics, Rate } from './score.js';

export const GATE_METRICS = {
  exact_match_rate: 'exactMatchRate',
  should_call_pass_rate: 'shouldCallPassRate',
  should_not_call_pass_rate: 'shouldNotCallPassRate',
  selection_accuracy: 'selectionAccuracy',
  macro_f1: 'macroF1',
  strict_pass_rate: 'strictPassRate',
  args_accuracy: 'argsAccuracy',
  request_acceptance_rate: 'requestAcceptanceRate',
  clarification_accuracy: 'clarificationAccuracy',
  recovery_rate: 'recoveryRate',
  trajectory_pass_rate: 'trajectoryPassRate',
  stability: 'stability',
  coverage: 'coverage',
} as const satisfies Record<string, keyof Metrics>;

export type GateName = keyof typeof GATE_METRICS;
export const GATE_NAMES = Object.keys(GATE_METRICS) as GateName[];

export type Gates = Partial<Record<GateName, number | null>> & { max_drop_pp?: number | null };

export const DEFAULT_GATES: Gates = {
  selection_accuracy: 0.95,
  strict_pass_rate: 0.85,
  args_accuracy: 0.9,
  max_drop_pp: 2,
};

export interface GateResult {
  gate: GateName;
  metric: string;
  threshold: number;
  value: number | null;
  numerator: number;
  denominator: number;
  status: 'passed' | 'failed' | 'skipped';
}

export function metricRate(m: Metrics, gate: GateName): Rate {
  return m[GATE_METRICS[gate]] as Rate;
}

/** The gates that have a threshold, in a stable order. */
export function activeGates(g: Gates): [GateName, number][] {
  return GATE_NAMES.filter((n) => typeof g[n] === 'number').map((n) => [n, g[n] as number]);
}

export function checkGates(m: Metrics, g: Gates): GateResult[] {
  return activeGates(g).map(([gate, threshold]) => {
    const r = metricRate(m, gate);
    const status = r.value === null ? 'skipped' : r.value >= threshold ? 'passed' : 'failed';
    return {
      gate,
      metric: GATE_METRICS[gate],
      threshold,
      value: r.value,
      numerator: r.numerator,
      denominator: r.denominator,
      status,
    };
  });
}
