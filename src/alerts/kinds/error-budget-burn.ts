/**
 * error_budget_burn: multi-window, multi-burn-rate alerting on a tool-call SLO, as the Google SRE
 * workbook ("Alerting on SLOs", approach 6) defines it. The SLO: `objective` of a group's checked
 * calls succeed (default 99 %), so the error budget is 1 − objective. The burn rate over a window is
 * its error rate divided by the budget (1 = spending it exactly over the SLO period). Each entry of
 * `windows` pairs a long window with a short one and a burn rate: the group is active while both
 * windows of some pair burn at least that fast — the long window makes it significant, the short
 * one makes it stop soon after the burning does. Defaults: 14.4× over 1h and 5m (2 % of a 30-day
 * budget in an hour), 6× over 6h and 30m (5 % in six hours).
 *
 * The error rate is error_rate's: structural failures over checked calls, or with
 * `include_execution` the combined tool-call error rate (see counts.ts). deploy/prometheus/
 * toolwatch-slo-rules.yml holds the same rules over toolwatch's metrics.
 */
import type { ExecutionStatus } from '../../model.js';
import type { CallCountRow, ExecutionCountRow } from '../../store/store.js';
import { durationMs, durationSchema } from '../../util/duration.js';
import {
  bySchema,
  currentWindow,
  groupRows,
  pct,
  type GroupLabel,
  type Observation,
  type RuleIO,
  type RuleKind,
} from '../rules.js';
import { structuralCause } from '../cause.js';
import { combinedTally, statusesSchema, tally, topFailingTools } from './counts.js';

export interface BurnWindow {
  long: string;
  short: string;
  burn_rate: number;
}

export interface ErrorBudgetBurnParams {
  objective: number;
  /** Absent: DEFAULT_BURN_WINDOWS (no schema default: a list of objects reads badly in the docs' key table). */
  windows?: BurnWindow[];
  min_calls: number;
  by: GroupLabel[];
  service?: string;
  include_execution: boolean;
  statuses: Exclude<ExecutionStatus, 'ok'>[];
}

/** Rows per window length (each read once, however many pairs share it). */
export type BurnData = Map<string, { calls: CallCountRow[]; executions: ExecutionCountRow[] }>;

/** A burn rate as people read it: 20×, 14.4×, 0.5×. */
export const times = (x: number): string => `${Number(x.toFixed(1))}×`;

export const DEFAULT_BURN_WINDOWS: readonly BurnWindow[] = [
  { long: '1h', short: '5m', burn_rate: 14.4 },
  { long: '6h', short: '30m', burn_rate: 6 },
];

export const errorBudgetBurn: RuleKind<ErrorBudgetBurnParams, BurnData> = {
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      objective: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.99 },
      windows: {
        type: 'array',
        minItems: 1,
        maxItems: 6,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['long', 'short', 'burn_rate'],
          properties: {
            long: durationSchema,
            short: durationSchema,
            burn_rate: { type: 'number', exclusiveMinimum: 0 },
          },
        },
      },
      min_calls: { type: 'integer', minimum: 1, default: 20 },
      by: bySchema,
      service: { type: 'string', minLength: 1 },
      include_execution: { type: 'boolean', default: false },
      statuses: statusesSchema,
    },
  },
  async load(p, io: RuleIO, now) {
    const data: BurnData = new Map();
    const svc = p.service ? { service: p.service } : {};
    for (const w of new Set(windowsOf(p).flatMap((x) => [x.long, x.short]))) {
      const q = { ...currentWindow(now, durationMs(w)), ...svc };
      const calls = await io.callCounts(q);
      const executions = p.include_execution && io.executionCounts ? await io.executionCounts(q) : [];
      data.set(w, { calls, executions });
    }
    return data;
  },
  evaluate(p, data) {
    const budget = 1 - p.objective;
    const rate = (w: string, key: string) => {
      const d = data.get(w);
      const c = d ? (groupRows(d.calls, p.by).get(key)?.rows ?? []) : [];
      if (!p.include_execution) {
        const t = tally(c);
        return { failed: t.failed, calls: t.checked, rows: c };
      }
      const e = d ? (groupRows(d.executions, p.by).get(key)?.rows ?? []) : [];
      const t = combinedTally(c, e, p.statuses);
      return { failed: t.failed, calls: t.denominator, rows: c };
    };
    const groups = new Map<string, Record<string, string>>();
    for (const d of data.values()) {
      for (const [key, g] of groupRows(d.calls, p.by)) groups.set(key, g.labels);
      for (const [key, g] of groupRows(d.executions, p.by)) groups.set(key, g.labels);
    }
    const out: Observation[] = [];
    for (const [key, labels] of groups) {
      const pairs = windowsOf(p).map((w) => {
        const long = rate(w.long, key);
        const short = rate(w.short, key);
        const burn = (x: { failed: number; calls: number }) => (x.calls > 0 ? x.failed / x.calls / budget : 0);
        const enough = long.calls >= p.min_calls;
        const firing = enough && burn(long) >= w.burn_rate && burn(short) >= w.burn_rate;
        return { w, long, short, longBurn: burn(long), shortBurn: burn(short), enough, firing };
      });
      // The pair the message is about: the first that fires, else the one closest to firing.
      const lead =
        pairs.find((x) => x.firing) ??
        pairs.reduce((a, b) =>
          Math.min(b.longBurn, b.shortBurn) / b.w.burn_rate > Math.min(a.longBurn, a.shortBurn) / a.w.burn_rate ? b : a,
        );
      out.push({
        labels,
        active: lead.firing,
        value: lead.longBurn,
        threshold: lead.w.burn_rate,
        summary: lead.enough
          ? `error budget burning ${times(lead.longBurn)} over ${lead.w.long} and ${times(lead.shortBurn)} over ${lead.w.short} ` +
            `(${lead.firing ? '≥' : 'alert at'} ${times(lead.w.burn_rate)} in both; objective ${pct(p.objective)}, ` +
            `${lead.long.failed} of ${lead.long.calls} calls failed over ${lead.w.long})`
          : `only ${lead.long.calls} calls in ${lead.w.long} (min_calls ${p.min_calls})`,
        details: {
          window: lead.w.long,
          checked: lead.long.calls,
          failed: lead.long.failed,
          topTools: topFailingTools(lead.long.rows),
          objective: p.objective,
          burn: pairs.map((x) => ({
            long: x.w.long,
            short: x.w.short,
            burnRate: x.w.burn_rate,
            longBurn: x.longBurn,
            shortBurn: x.shortBurn,
            firing: x.firing,
          })),
        },
      });
    }
    return out;
  },
  // The structural part of the rate; the downstream part has no per-change counts of its own here.
  cause: structuralCause,
};

function windowsOf(p: ErrorBudgetBurnParams): readonly BurnWindow[] {
  return p.windows ?? DEFAULT_BURN_WINDOWS;
}
