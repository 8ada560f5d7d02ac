/**
 * execution_error_rate: the share of a group's tool executions over `window` whose status is one of
 * `statuses` (default client_error: the downstream refused the call as wrong — seed 001's "every
 * rejection by the tool's API is a proxy for a semantically invalid call"), above `threshold`, once
 * `min_calls` executions were seen. Executions are read from tool spans and their HTTP client children
 * (src/normalize/exec-status.ts); a call without a tool span has no execution and is not counted here.
 */
import type { ExecutionStatus } from '../../model.js';
import type { ExecutionCountRow } from '../../store/store.js';
import { durationSchema } from '../../util/duration.js';
import {
  bySchema,
  groupRows,
  loadExecutionWindow,
  pct,
  type GroupLabel,
  type Observation,
  type RuleKind,
} from '../rules.js';
import { executionCause } from '../cause.js';
import { executionTally, statusesSchema, topFailingExecutions } from './counts.js';

export interface ExecutionErrorRateParams {
  window: string;
  threshold: number;
  min_calls: number;
  by: GroupLabel[];
  statuses: Exclude<ExecutionStatus, 'ok'>[];
  service?: string;
}

export const executionErrorRate: RuleKind<ExecutionErrorRateParams, ExecutionCountRow[]> = {
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      window: { ...durationSchema, default: '5m' },
      threshold: { type: 'number', minimum: 0, maximum: 1, default: 0.01 },
      min_calls: { type: 'integer', minimum: 1, default: 20 },
      by: bySchema,
      statuses: statusesSchema,
      service: { type: 'string', minLength: 1 },
    },
  },
  load: loadExecutionWindow,
  evaluate(p, rows) {
    const out: Observation[] = [];
    const which = p.statuses.join(' or ');
    for (const g of groupRows(rows, p.by).values()) {
      const t = executionTally(g.rows, p.statuses);
      const rate = t.executions > 0 ? t.failed / t.executions : 0;
      const enough = t.executions >= p.min_calls;
      out.push({
        labels: g.labels,
        active: enough && rate > p.threshold,
        value: rate,
        threshold: p.threshold,
        summary: enough
          ? `execution error rate ${pct(rate)} ${rate > p.threshold ? '>' : '≤'} ${pct(p.threshold)} ` +
            `(${t.failed} of ${t.executions} executions ${which}, ${p.window})`
          : `only ${t.executions} executions in ${p.window} (min_calls ${p.min_calls})`,
        details: {
          window: p.window,
          statuses: p.statuses,
          executions: t.executions,
          failedExecutions: t.failed,
          topTools: topFailingExecutions(g.rows, p.statuses),
        },
      });
    }
    return out;
  },
  cause: executionCause,
};
