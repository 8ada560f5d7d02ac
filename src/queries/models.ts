/**
 * Models side by side (GET /api/stats?by=model and the page's models section): per service and model
 * over a window, the structural error rate, the unvalidated share, the executions and how many failed
 * downstream, calls per trajectory (and the other efficiency measures), and — when the judge runs — the
 * weighted reached_goal rate of its verdicts given in the window. A model that is new to its service
 * (its first minute, once the service already had calls of another model: src/queries/trends.ts
 * modelChanges) is marked with that minute, so "we switched the model on Saturday" is one look.
 */
import { verdictRates, type WeightedRate } from '../judge/calibration.js';
import type { VerdictPoint } from '../judge/store.js';
import { OUTCOMES, type OutcomeName } from '../model.js';
import type { ExecutionCountRow } from '../store/store.js';
import { efficiency } from './efficiency.js';
import type { Reader } from './reader.js';
import { callSeries, seriesRange } from './series.js';
import { executionSummary, type ExecutionSummary } from './stats.js';
import { modelChanges, type ModelChange } from './trends.js';
import type { TrajectoryStats } from '../efficiency/store.js';
import { storeFilter } from '../util/service-view.js';

export interface ModelRow {
  service: string;
  model: string;
  counts: Record<OutcomeName, number>;
  total: number;
  checked: number;
  failed: number;
  /** failed / checked; null when nothing was checked. */
  errorRate: number | null;
  /** unvalidated / total; null without calls. */
  unvalidatedShare: number | null;
  executions: ExecutionSummary;
  /** Its trajectories that completed in the window; null when none did. */
  trajectories: TrajectoryStats | null;
  /** Verdicts given in the window on its trajectories (weighted); null when the judge is off. */
  reachedGoal: (WeightedRate & { verdicts: number }) | null;
  /** Its first minute with calls in the window. */
  firstSeen: string;
  /** Set when the model is new to its service in the window (a model change): its first minute, the models before. */
  changed: { at: string; before: string[] } | null;
}

export interface ModelComparison {
  window: { sinceMs: number; untilMs: number };
  models: ModelRow[];
  modelChanges: ModelChange[];
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function modelComparison(
  r: Reader,
  q: { windowMs: number; nowMs: number; service?: string },
): Promise<ModelComparison> {
  const range = seriesRange(q.nowMs, q.windowMs);
  const length = range.untilMs - range.sinceMs;
  const view = storeFilter(r.view);
  const svc = { ...(q.service ? { service: q.service } : {}), ...view };
  const judgeOn = r.judge?.config.enabled ? r.judge : undefined;
  const [now, before, execs, eff, verdicts] = await Promise.all([
    callSeries(r.store, { ...range, stepMs: length, by: ['service', 'model'], ...svc }),
    callSeries(r.store, {
      sinceMs: range.sinceMs - length,
      untilMs: range.sinceMs,
      stepMs: length,
      by: ['service', 'model'],
      ...svc,
    }),
    r.store.executionCounts({ ...range, ...svc }),
    efficiency(r, { windowMs: q.windowMs, nowMs: q.nowMs, ...(q.service ? { service: q.service } : {}) }),
    judgeOn ? judgeOn.store.verdicts.verdictPoints({ sinceMs: range.sinceMs, ...svc }) : Promise.resolve(undefined),
  ]);
  const changes = modelChanges(now.series, before.series);
  const key = (service: string, model: string) => `${service}\u0000${model}`;
  const execBy = new Map<string, ExecutionCountRow[]>();
  for (const e of execs) execBy.set(key(e.service, e.model), [...(execBy.get(key(e.service, e.model)) ?? []), e]);
  const effBy = new Map(eff.models.map((g) => [key(g.service, g.model), g.stats]));
  const verdictsBy = new Map<string, VerdictPoint[]>();
  for (const v of verdicts ?? [])
    verdictsBy.set(key(v.service, v.model ?? ''), [...(verdictsBy.get(key(v.service, v.model ?? '')) ?? []), v]);
  const changeBy = new Map(changes.map((c) => [key(c.service, c.model), c]));
  const models = now.series.map((s): ModelRow => {
    const service = s.key.service ?? '';
    const model = s.key.model ?? '';
    const k = key(service, model);
    const p = s.sum;
    const points = verdictsBy.get(k) ?? [];
    const change = changeBy.get(k);
    return {
      service,
      model,
      counts: Object.fromEntries(OUTCOMES.map((o) => [o, p.counts[o]])) as Record<OutcomeName, number>,
      total: p.total,
      checked: p.checked,
      failed: p.failed,
      errorRate: p.errorRate,
      unvalidatedShare: p.total > 0 ? p.counts.unvalidated / p.total : null,
      executions: executionSummary(execBy.get(k) ?? []),
      trajectories: effBy.get(k) ?? null,
      reachedGoal: verdicts ? { ...verdictRates(points).reachedGoal, verdicts: points.length } : null,
      firstSeen: iso(s.firstMinute),
      changed: change ? { at: iso(change.minute), before: change.before } : null,
    };
  });
  models.sort((a, b) => a.service.localeCompare(b.service) || b.total - a.total || a.model.localeCompare(b.model));
  return { window: range, models, modelChanges: changes };
}
