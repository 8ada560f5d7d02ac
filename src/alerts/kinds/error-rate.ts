/**
 * error_rate: the structural error rate (InvalidJson + UnknownName + SchemaMismatch over every
 * checked call) of each group over `window`, above `threshold`, once `min_calls` were checked.
 */
import { bySchema, groupRows, pct, type CallWindows, type GroupLabel, type Observation, type RuleKind } from '../rules.js';
import { durationSchema } from '../../util/duration.js';
import { tally, topFailingTools } from './counts.js';

export interface ErrorRateParams {
  window: string;
  threshold: number;
  min_calls: number;
  by: GroupLabel[];
  service?: string;
}

export const errorRate: RuleKind<ErrorRateParams, CallWindows> = {
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      window: { ...durationSchema, default: '5m' },
      threshold: { type: 'number', minimum: 0, maximum: 1, default: 0.01 },
      min_calls: { type: 'integer', minimum: 1, default: 20 },
      by: bySchema,
      service: { type: 'string', minLength: 1 },
    },
  },
  evaluate(p, data) {
    const out: Observation[] = [];
    for (const g of groupRows(data.current, p.by).values()) {
      const t = tally(g.rows);
      const rate = t.checked > 0 ? t.failed / t.checked : 0;
      const enough = t.checked >= p.min_calls;
      out.push({
        labels: g.labels,
        active: enough && rate > p.threshold,
        value: rate,
        threshold: p.threshold,
        summary: enough
          ? `error rate ${pct(rate)} ${rate > p.threshold ? '>' : '≤'} ${pct(p.threshold)} (${t.failed} of ${t.checked} checked calls failed, ${p.window})`
          : `only ${t.checked} checked calls in ${p.window} (min_calls ${p.min_calls})`,
        details: { window: p.window, checked: t.checked, failed: t.failed, total: t.total, topTools: topFailingTools(g.rows) },
      });
    }
    return out;
  },
};
