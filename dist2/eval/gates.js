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
};
export const GATE_NAMES = Object.keys(GATE_METRICS);
export const DEFAULT_GATES = {
    selection_accuracy: 0.95,
    strict_pass_rate: 0.85,
    args_accuracy: 0.9,
    max_drop_pp: 2,
};
export function metricRate(m, gate) {
    return m[GATE_METRICS[gate]];
}
/** The gates that have a threshold, in a stable order. */
export function activeGates(g) {
    return GATE_NAMES.filter((n) => typeof g[n] === 'number').map((n) => [n, g[n]]);
}
export function checkGates(m, g) {
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
//# sourceMappingURL=gates.js.map