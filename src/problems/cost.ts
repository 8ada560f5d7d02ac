/**
 * What each problem costs: the repair turns of completed trajectories (src/efficiency/repairs.ts)
 * summed per problem, model of the failure and UTC day (table problem_costs, migration 13), written
 * in the same write as the trajectories' statistics; priced at read time with `problems.prices`.
 *
 * A repair is filed under the problem row its failure went to: its own, or the service's `_other`
 * when the service was past problems.max_per_service (decided in SQL, as the failure's own rows are).
 */
import type { CompletedTrajectory } from '../efficiency/tracker.js';
import type { BatchExtension, Sql } from '../store/sql.js';
import { MultiRow } from './rows.js';
import { OTHER_PROBLEM } from './store.js';
import { compareText } from '../util/compare-text.js';

const DAY = 86_400_000;

/** USD per million tokens, per model label (`*`: any model not named). */
export type PriceTable = Readonly<Record<string, { input: number; output: number }>>;

interface CostSums {
  repairs: number;
  repaired: number;
  retries: number;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
}

/**
 * The repair rows, several per statement (rows.ts), per engine. PostgreSQL's upsert cannot touch a
 * row twice in one statement, so there rows bound for one `_other` are summed first, in key order;
 * SQLite's takes the rows one by one, as separate statements would (already in key order).
 */
function costUpsert(dialect: Sql['dialect']): MultiRow {
  const pg = dialect === 'postgres';
  const sum = (column: string) => (pg ? `SUM(${column})` : column);
  const keys = 'd.service, d.id, d.model, d.day';
  return new MultiRow(
    [
      ['service', 'TEXT'],
      ['id', 'TEXT'],
      ['model', 'TEXT'],
      ['day', 'BIGINT'],
      ['repairs', 'BIGINT'],
      ['repaired', 'BIGINT'],
      ['retries', 'BIGINT'],
      ['steps', 'BIGINT'],
      ['input_tokens', 'BIGINT'],
      ['output_tokens', 'BIGINT'],
      ['duration_ms', 'BIGINT'],
    ],
    `INSERT INTO problem_costs (service, id, model, day, repairs, repaired, retries, steps, input_tokens,
       output_tokens, duration_ms)
     SELECT ${keys}, ${['repairs', 'repaired', 'retries', 'steps', 'input_tokens', 'output_tokens', 'duration_ms']
       .map((c) => sum(`d.${c}`))
       .join(', ')}
     FROM (SELECT v.service,
         CASE WHEN EXISTS (SELECT 1 FROM problems p WHERE p.service = v.service AND p.id = v.id) THEN v.id
           ELSE '${OTHER_PROBLEM}' END AS id,
         v.model, v.day, v.repairs, v.repaired, v.retries, v.steps, v.input_tokens, v.output_tokens, v.duration_ms
       FROM v) d
     WHERE 1 = 1 ${pg ? `GROUP BY ${keys} ORDER BY ${keys}` : ''}
     ON CONFLICT (service, id, model, day) DO UPDATE SET repairs = problem_costs.repairs + excluded.repairs,
       repaired = problem_costs.repaired + excluded.repaired, retries = problem_costs.retries + excluded.retries,
       steps = problem_costs.steps + excluded.steps,
       input_tokens = problem_costs.input_tokens + excluded.input_tokens,
       output_tokens = problem_costs.output_tokens + excluded.output_tokens,
       duration_ms = problem_costs.duration_ms + excluded.duration_ms`,
  );
}

/** Built once per engine: the statement caches find them by the same strings. */
const COST_UPSERT = { sqlite: costUpsert('sqlite'), postgres: costUpsert('postgres') };

/** The repair rows of completed trajectories; undefined when none had a repair. */
export function repairExtension(
  done: readonly CompletedTrajectory[],
  dialect: Sql['dialect'],
): BatchExtension | undefined {
  const sums = new Map<string, { service: string; id: string; model: string; day: number } & CostSums>();
  for (const t of done) {
    if (!t.repairs) continue;
    for (const r of t.repairs) {
      const day = r.endMs - (((r.endMs % DAY) + DAY) % DAY);
      const key = `${r.service}\u0000${r.problemId}\u0000${r.model}\u0000${day}`;
      let s = sums.get(key);
      if (!s) {
        s = { service: r.service, id: r.problemId, model: r.model, day, ...zero() };
        sums.set(key, s);
      }
      s.repairs++;
      if (r.repaired) s.repaired++;
      s.retries += r.retries;
      s.steps += r.steps;
      s.inputTokens += r.inputTokens;
      s.outputTokens += r.outputTokens;
      s.durationMs += Math.round(r.durationMs);
    }
  }
  if (sums.size === 0) return undefined;
  // Sorted keys: concurrent writers lock rows in one order.
  const rows = [...sums.entries()].sort(([a], [b]) => compareText(a, b)).map(([, s]) => s);
  const params: unknown[] = [];
  for (const s of rows)
    params.push(
      s.service,
      s.id,
      s.model,
      s.day,
      s.repairs,
      s.repaired,
      s.retries,
      s.steps,
      s.inputTokens,
      s.outputTokens,
      s.durationMs,
    );
  const upsert = COST_UPSERT[dialect];
  return (tx) => upsert.run(tx, params);
}

function zero(): CostSums {
  return { repairs: 0, repaired: 0, retries: 0, steps: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 };
}

/** A problem's cost as the API shows it. */
export interface ProblemCost extends CostSums {
  /** USD, from the tokens of models the price table prices; null when it prices none of them. */
  usd: number | null;
  /** Tokens of models the price table does not price (not in `usd`). */
  unpricedTokens: number;
}

export interface CostRow extends CostSums {
  service: string;
  id: string;
  model: string;
  day: number;
}

/** A problem_costs row as read. */
export function toCostRow(r: Record<string, unknown>): CostRow {
  return {
    service: String(r.service),
    id: String(r.id),
    model: String(r.model),
    day: Number(r.day),
    repairs: Number(r.repairs),
    repaired: Number(r.repaired),
    retries: Number(r.retries),
    steps: Number(r.steps),
    inputTokens: Number(r.input_tokens),
    outputTokens: Number(r.output_tokens),
    durationMs: Number(r.duration_ms),
  };
}

/** The cost rows of one problem, or of every problem of the services given (all when undefined), since a day. */
export async function costRows(
  sql: Sql,
  filter: { service?: string; id?: string; sinceMs?: number },
): Promise<CostRow[]> {
  const where: string[] = [];
  const args: unknown[] = [];
  if (filter.service !== undefined) where.push('service = ?'), args.push(filter.service);
  if (filter.id !== undefined) where.push('id = ?'), args.push(filter.id);
  if (filter.sinceMs !== undefined) where.push('day >= ?'), args.push(filter.sinceMs - (filter.sinceMs % DAY));
  const rows = await sql.all(
    `SELECT * FROM problem_costs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY service, id, day, model`,
    args,
  );
  return rows.map(toCostRow);
}

/** Rows summed and priced (USD per million tokens of the failure's model, else of `*`). */
export function priceCost(rows: readonly CostRow[], prices: PriceTable): ProblemCost {
  const out: ProblemCost = { ...zero(), usd: null, unpricedTokens: 0 };
  for (const r of rows) {
    out.repairs += r.repairs;
    out.repaired += r.repaired;
    out.retries += r.retries;
    out.steps += r.steps;
    out.inputTokens += r.inputTokens;
    out.outputTokens += r.outputTokens;
    out.durationMs += r.durationMs;
    const price = Object.hasOwn(prices, r.model) ? prices[r.model] : prices['*'];
    if (price) out.usd = (out.usd ?? 0) + (r.inputTokens * price.input + r.outputTokens * price.output) / 1e6;
    else out.unpricedTokens += r.inputTokens + r.outputTokens;
  }
  if (out.usd !== null) out.usd = Math.round(out.usd * 1e6) / 1e6;
  return out;
}

/** Per UTC day: the repairs' cost (history of a problem's cost). */
export function costByDay(rows: readonly CostRow[], prices: PriceTable): ({ day: number } & ProblemCost)[] {
  const days = new Map<number, CostRow[]>();
  for (const r of rows) days.set(r.day, [...(days.get(r.day) ?? []), r]);
  return [...days.entries()].sort(([a], [b]) => a - b).map(([day, rs]) => ({ day, ...priceCost(rs, prices) }));
}
