/** The built-in rule kinds, in a fresh registry (one per service instance). */
import { Registry } from '../../util/registry.js';
import { drift } from './drift.js';
import { errorBudgetBurn } from './error-budget-burn.js';
import { errorRateDrift } from './error-rate-drift.js';
import { errorRate } from './error-rate.js';
import { executionErrorRate } from './execution-error-rate.js';
import { unvalidatedShare } from './unvalidated-share.js';
export class RuleKinds extends Registry {
    constructor() {
        super('rule kind');
    }
    /** Kind names are lower_snake_case: they are config values. Each kind is typed by its own keys and data. */
    register(name, kind, options = {}) {
        if (!/^[a-z][a-z0-9_]*$/.test(name))
            throw new Error(`rule kind ${JSON.stringify(name)}: use lower_snake_case`);
        return super.register(name, kind, options);
    }
}
export function builtinRuleKinds() {
    return new RuleKinds()
        .register('error_rate', errorRate)
        .register('drift', drift)
        .register('error_rate_drift', errorRateDrift)
        .register('unvalidated_share', unvalidatedShare)
        .register('execution_error_rate', executionErrorRate)
        .register('error_budget_burn', errorBudgetBurn);
}
//# sourceMappingURL=index.js.map