/** The built-in rule kinds, in a fresh registry (one per service instance). */
import { Registry } from '../../util/registry.js';
import type { RuleKind } from '../rules.js';
import { drift } from './drift.js';
import { errorBudgetBurn } from './error-budget-burn.js';
import { errorRateDrift } from './error-rate-drift.js';
import { errorRate } from './error-rate.js';
import { executionErrorRate } from './execution-error-rate.js';
import { unvalidatedShare } from './unvalidated-share.js';

export class RuleKinds extends Registry<RuleKind> {
  constructor() {
    super('rule kind');
  }

  /** Kind names are lower_snake_case: they are config values. Each kind is typed by its own keys and data. */
  override register<P, D>(name: string, kind: RuleKind<P, D>, options: { before?: string } = {}): this {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`rule kind ${JSON.stringify(name)}: use lower_snake_case`);
    return super.register(name, kind as unknown as RuleKind, options);
  }
}

export function builtinRuleKinds(): RuleKinds {
  return new RuleKinds()
    .register('error_rate', errorRate)
    .register('drift', drift)
    .register('error_rate_drift', errorRateDrift)
    .register('unvalidated_share', unvalidatedShare)
    .register('execution_error_rate', executionErrorRate)
    .register('error_budget_burn', errorBudgetBurn);
}
