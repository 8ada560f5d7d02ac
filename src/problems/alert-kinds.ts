/**
 * Alert rule kinds over problems: `new_problem` fires when toolwatch has just recorded a signature
 * (its wall clock, `recorded_ms`, whatever the age of the spans) and it reached `min_occurrences`
 * within `within` of that; `regressed_problem` fires when a resolved problem was seen again within
 * `within`. One alert per problem and transition: the alert is started by the transition and kept
 * while the problem stays in it (open, or regressed), then resolved (the problem was resolved or
 * muted). The states and their messages commit in one transaction under the evaluator's lock
 * (src/alerts/evaluator.ts), so two replicas or a restart after kill -9 send each one once.
 *
 * load() reads the problems through RuleIO (`io.problems`, the source this file adds to alerts'
 * RuleSources); evaluate() is pure.
 */
import type { Observation, ProblemFacts, RuleIO, RuleKind } from '../alerts/rules.js';
import { problemLine } from '../alerts/problem-message.js';
import type { Sql } from '../store/sql.js';
import { durationMs, durationSchema } from '../util/duration.js';
import { type CostRow, type PriceTable, priceCost, type ProblemCost, toCostRow } from './cost.js';
import { problemInWords } from './in-words.js';
import { OTHER_PROBLEM, partsOf } from './store.js';

/** A problem that is open or regressed, with what a message says about it. */
export interface ProblemAlertRow {
  service: string;
  id: string;
  outcome: string;
  tool: string;
  parts: string[];
  status: 'open' | 'regressed';
  statusMs: number;
  /** null: recorded before toolwatch kept the time (never new). */
  recordedMs: number | null;
  firstSeenMs: number;
  lastSeenMs: number;
  occurrences: number;
  /** Most calls first. */
  models: { model: string; count: number }[];
  /** Its repair turns so far, priced with problems.prices (as /api/problems `cost`). */
  cost?: ProblemCost;
  /** The first kept example. */
  example?: { model: string; traceId: string; name: string; message: string; arguments?: string; timeMs: number };
}

export interface ProblemRuleSource {
  /** Problems open or regressed (never `_other`), optionally of one service. */
  current(q: { service?: string }): Promise<ProblemAlertRow[]>;
}

declare module '../alerts/rules.js' {
  interface RuleSources {
    /** Open and regressed problems (new_problem and regressed_problem read them). */
    problems: ProblemRuleSource;
  }
}

const MAX_MODELS = 5;

/** The source over the problem tables: four reads per round, whatever the number of problems. */
export function problemRuleSource(sql: Sql, prices: PriceTable = {}): ProblemRuleSource {
  return {
    async current({ service }) {
      const only = service === undefined ? '' : ' AND p.service = ?';
      const args = service === undefined ? [] : [service];
      const live = `p.status IN ('open', 'regressed') AND p.id <> '${OTHER_PROBLEM}'${only}`;
      const [rows, models, examples, costs] = await Promise.all([
        sql.all(`SELECT p.* FROM problems p WHERE ${live} ORDER BY p.service, p.id`, args),
        sql.all(
          `SELECT m.service, m.id, m.model, m.count FROM problem_models m
           JOIN problems p ON p.service = m.service AND p.id = m.id WHERE ${live}`,
          args,
        ),
        sql.all(
          `SELECT e.* FROM problem_examples e JOIN problems p ON p.service = e.service AND p.id = e.id
           WHERE e.slot = 'first' AND ${live}`,
          args,
        ),
        sql.all(
          `SELECT c.* FROM problem_costs c JOIN problems p ON p.service = c.service AND p.id = c.id WHERE ${live}`,
          args,
        ),
      ]);
      const key = (r: Record<string, unknown>) => `${String(r.service)}\u0000${String(r.id)}`;
      const byProblem = new Map<string, { model: string; count: number }[]>();
      for (const m of models) {
        const list = byProblem.get(key(m)) ?? [];
        list.push({ model: String(m.model), count: Number(m.count) });
        byProblem.set(key(m), list);
      }
      const firstExample = new Map(examples.map((e) => [key(e), e]));
      const costRows = new Map<string, CostRow[]>();
      for (const c of costs) {
        const list = costRows.get(key(c)) ?? [];
        list.push(toCostRow(c));
        costRows.set(key(c), list);
      }
      return rows.map((r): ProblemAlertRow => {
        const e = firstExample.get(key(r));
        const parts = partsOf(r.parts);
        return {
          service: String(r.service),
          id: String(r.id),
          outcome: String(r.outcome),
          tool: String(r.tool),
          parts,
          status: String(r.status) as ProblemAlertRow['status'],
          statusMs: Number(r.status_ms),
          recordedMs: r.recorded_ms === null || r.recorded_ms === undefined ? null : Number(r.recorded_ms),
          firstSeenMs: Number(r.first_seen_ms),
          lastSeenMs: Number(r.last_seen_ms),
          occurrences: Number(r.occurrences),
          cost: priceCost(costRows.get(key(r)) ?? [], prices),
          models: (byProblem.get(key(r)) ?? []).sort(
            (a, b) => b.count - a.count || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0),
          ),
          ...(e
            ? {
                example: {
                  model: String(e.model),
                  traceId: String(e.trace_id),
                  name: String(e.name),
                  message: String(e.message),
                  ...(e.arguments === null || e.arguments === undefined ? {} : { arguments: String(e.arguments) }),
                  timeMs: Number(e.time_ms),
                },
              }
            : {}),
        };
      });
    },
  };
}

export interface NewProblemParams {
  min_occurrences: number;
  within: string;
  service?: string;
}

export interface RegressedProblemParams {
  within: string;
  service?: string;
}

const serviceKey = { type: 'string', minLength: 1 } as const;

async function load(p: { service?: string }, io: RuleIO): Promise<ProblemAlertRow[]> {
  // Problems off (no source): the rule sees none, as a judge rule does without a judge.
  return io.problems ? io.problems.current(p.service === undefined ? {} : { service: p.service }) : [];
}

export const newProblem: RuleKind<NewProblemParams, ProblemAlertRow[]> = {
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      min_occurrences: { type: 'integer', minimum: 1, default: 3 },
      within: { ...durationSchema, default: '10m' },
      service: serviceKey,
    },
  },
  load,
  evaluate(p, rows, now) {
    const withinMs = durationMs(p.within);
    return rows.map((r) => {
      const fresh = r.recordedMs !== null && now - r.recordedMs <= withinMs;
      const enough = r.occurrences >= p.min_occurrences;
      return observe(r, 'new', r.recordedMs ?? r.firstSeenMs, {
        active: r.status === 'open' && fresh && enough,
        keep: r.status === 'open',
        threshold: p.min_occurrences,
        now,
      });
    });
  },
};

export const regressedProblem: RuleKind<RegressedProblemParams, ProblemAlertRow[]> = {
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: { within: { ...durationSchema, default: '10m' }, service: serviceKey },
  },
  load,
  evaluate(p, rows, now) {
    const withinMs = durationMs(p.within);
    return rows.map((r) =>
      observe(r, 'regressed', r.statusMs, {
        active: r.status === 'regressed' && now - r.statusMs <= withinMs,
        keep: r.status === 'regressed',
        threshold: 1,
        now,
      }),
    );
  },
};

function observe(
  r: ProblemAlertRow,
  transition: ProblemFacts['transition'],
  sinceMs: number,
  o: { active: boolean; keep: boolean; threshold: number; now: number },
): Observation {
  const facts: ProblemFacts = {
    id: r.id,
    service: r.service,
    tool: r.tool,
    outcome: r.outcome,
    transition,
    what: problemInWords(r),
    occurrences: r.occurrences,
    firstSeenMs: r.firstSeenMs,
    lastSeenMs: r.lastSeenMs,
    sinceMs,
    models: r.models.slice(0, MAX_MODELS),
    moreModels: Math.max(0, r.models.length - MAX_MODELS),
    ...(r.example?.arguments !== undefined ? { arguments: r.example.arguments } : {}),
    ...(r.cost
      ? {
          cost: {
            repairs: r.cost.repairs,
            inputTokens: r.cost.inputTokens,
            outputTokens: r.cost.outputTokens,
            durationMs: r.cost.durationMs,
            usd: r.cost.usd,
            unpricedTokens: r.cost.unpricedTokens,
          },
        }
      : {}),
  };
  return {
    labels: { service: r.service, tool: r.tool, problem: r.id },
    active: o.active,
    keep: o.keep,
    value: r.occurrences,
    threshold: o.threshold,
    summary: problemLine(facts, o.now),
    details: {
      problem: facts,
      linkPath: `/problems/${encodeURIComponent(r.id)}`,
      ...(r.example
        ? {
            example: {
              tool: r.tool,
              name: r.example.name,
              outcome: r.outcome,
              path: '',
              message: r.example.message,
              traceId: r.example.traceId,
              time: new Date(r.example.timeMs).toISOString(),
            },
          }
        : {}),
    },
  };
}
