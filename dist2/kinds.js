/**
 * The registries of kinds that keep coming — span dialects, alert rule kinds, notifier kinds —
 * built per service instance: the config phase checks rules and notifiers against them, the
 * services run them. Tests and embedders pass their own (builtinKinds() plus what they register).
 */
import { builtinNotifierKinds } from './alerts/notifiers/index.js';
import { builtinRuleKinds } from './alerts/kinds/index.js';
import { definitionDrift } from './changes/alert-kind.js';
import { negativeFeedbackRate } from './feedback/alert-kind.js';
import { judgeGoalRate, judgeUnnecessaryCalls } from './judge/alert-kind.js';
import { builtinDialects } from './normalize/dialects.js';
import { newProblem, regressedProblem } from './problems/alert-kinds.js';
export function builtinKinds() {
    return {
        dialects: builtinDialects(),
        rules: builtinRuleKinds()
            .register('judge_goal_rate', judgeGoalRate)
            .register('judge_unnecessary_calls', judgeUnnecessaryCalls)
            .register('negative_feedback_rate', negativeFeedbackRate)
            .register('definition_drift', definitionDrift)
            .register('new_problem', newProblem)
            .register('regressed_problem', regressedProblem),
        notifiers: builtinNotifierKinds(),
    };
}
//# sourceMappingURL=kinds.js.map