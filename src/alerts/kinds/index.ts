/** The built-in rule kinds, registered once when this module is first imported. */
import { registerRuleKind, ruleKind } from '../rules.js';
import { drift } from './drift.js';
import { errorRateDrift } from './error-rate-drift.js';
import { errorRate } from './error-rate.js';
import { unvalidatedShare } from './unvalidated-share.js';

if (!ruleKind('error_rate')) {
  registerRuleKind('error_rate', errorRate);
  registerRuleKind('drift', drift);
  registerRuleKind('error_rate_drift', errorRateDrift);
  registerRuleKind('unvalidated_share', unvalidatedShare);
}
