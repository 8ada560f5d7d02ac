/**
 * The registries of kinds that keep coming — span dialects, alert rule kinds, notifier kinds —
 * built per service instance: the config phase checks rules and notifiers against them, the
 * services run them. Tests and embedders pass their own (builtinKinds() plus what they register).
 */
import { builtinNotifierKinds, type NotifierKinds } from './alerts/notifiers/index.js';
import { builtinRuleKinds, type RuleKinds } from './alerts/kinds/index.js';
import { judgeGoalRate } from './judge/alert-kind.js';
import { builtinDialects, type Dialects } from './normalize/registry.js';

export interface Kinds {
  dialects: Dialects;
  rules: RuleKinds;
  notifiers: NotifierKinds;
}

export function builtinKinds(): Kinds {
  return {
    dialects: builtinDialects(),
    rules: builtinRuleKinds().register('judge_goal_rate', judgeGoalRate),
    notifiers: builtinNotifierKinds(),
  };
}
