/**
 * Completed trajectories in the store, written once for both engines over the SQL port: per minute
 * (of the trajectory's last span), service and model, the sums (trajectory_minutes) and the count per
 * value bucket of each measure (trajectory_buckets, see buckets.ts). Rows are upserted (added to), so
 * replicas writing the same minute add up; keys are sorted so concurrent writers lock rows in one order.
 */
import { minuteOf } from '../store/store.js';
import { num } from '../store/rows.js';
import { servicesMatch, valuesList, type BatchExtension, type Sql } from '../store/sql.js';
import { bucketOf, quantile } from './buckets.js';
import type { CompletedTrajectory } from './tracker.js';

export const MEASURES = ['steps', 'tool_calls', 'failed_calls', 'tokens', 'duration_ms'] as const;
export type Measure = (typeof MEASURES)[number];

const ROWS_PER_STATEMENT = 100;

interface Sums {
  minute: number;
  service: string;
  model: string;
  trajectories: number;
  steps: number;
  toolCalls: number;
  failedCalls: number;
  tokens: number;
  withTokens: number;
  durationMs: number;
}

const emptySums = (): Omit<Sums, 'minute' | 'service' | 'model'> => ({
  trajectories: 0,
  steps: 0,
  toolCalls: 0,
  failedCalls: 0,
  tokens: 0,
  withTokens: 0,
  durationMs: 0,
});

const measureValue = (t: CompletedTrajectory, m: Measure): number | null =>
  m === 'steps'
    ? t.steps
    : m === 'tool_calls'
      ? t.toolCalls
      : m === 'failed_calls'
        ? t.failedCalls
        : m === 'tokens'
          ? t.tokens
          : t.durationMs;

/** The rows of completed trajectories, for a store write's transaction; undefined when there are none. */
export function trajectoryExtension(items: readonly CompletedTrajectory[]): BatchExtension | undefined {
  if (items.length === 0) return undefined;
  // Per (minute, service, model): the sums, and per measure a map of bucket → count (numeric keys).
  const groups = new Map<string, { sums: Sums; counts: Map<number, number>[] }>();
  // Trajectories handed out together mostly share a minute, service and model: the last group is tried first.
  let last: { sums: Sums; counts: Map<number, number>[] } | undefined;
  for (const t of items) {
    const minute = minuteOf(t.endMs);
    let g = last;
    if (!g || g.sums.minute !== minute || g.sums.service !== t.service || g.sums.model !== t.model) {
      const k = `${minute}\u0000${t.service}\u0000${t.model}`;
      g = groups.get(k);
      if (!g) {
        const sums: Sums = { minute, service: t.service, model: t.model, ...emptySums() };
        g = { sums, counts: MEASURES.map(() => new Map<number, number>()) };
        groups.set(k, g);
      }
      last = g;
    }
    const s = g.sums;
    s.trajectories++;
    s.steps += t.steps;
    s.toolCalls += t.toolCalls;
    s.failedCalls += t.failedCalls;
    if (t.tokens !== null) (s.tokens += t.tokens), s.withTokens++;
    s.durationMs += Math.round(t.durationMs);
    for (let m = 0; m < MEASURES.length; m++) {
      const v = measureValue(t, MEASURES[m]!);
      if (v === null) continue;
      const bucket = bucketOf(v);
      const counts = g.counts[m]!;
      counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
    }
  }
  const keys = [...groups.keys()].sort();
  const sumRows = keys.map((k) => groups.get(k)!.sums);
  const bucketRows: {
    minute: number;
    service: string;
    model: string;
    measure: Measure;
    bucket: number;
    count: number;
  }[] = [];
  for (const k of keys) {
    const { sums, counts } = groups.get(k)!;
    MEASURES.forEach((measure, m) => {
      for (const bucket of [...counts[m]!.keys()].sort((a, b) => a - b)) {
        bucketRows.push({
          minute: sums.minute,
          service: sums.service,
          model: sums.model,
          measure,
          bucket,
          count: counts[m]!.get(bucket)!,
        });
      }
    });
  }
  return (tx) => {
    for (let i = 0; i < sumRows.length; i += ROWS_PER_STATEMENT) {
      const chunk = sumRows.slice(i, i + ROWS_PER_STATEMENT);
      tx.run(
        `INSERT INTO trajectory_minutes (minute, service, model, trajectories, steps, tool_calls, failed_calls, tokens,
           with_tokens, duration_ms) VALUES ${valuesList(chunk.length, 10)}
         ON CONFLICT (minute, service, model) DO UPDATE SET
           trajectories = trajectory_minutes.trajectories + excluded.trajectories,
           steps = trajectory_minutes.steps + excluded.steps,
           tool_calls = trajectory_minutes.tool_calls + excluded.tool_calls,
           failed_calls = trajectory_minutes.failed_calls + excluded.failed_calls,
           tokens = trajectory_minutes.tokens + excluded.tokens,
           with_tokens = trajectory_minutes.with_tokens + excluded.with_tokens,
           duration_ms = trajectory_minutes.duration_ms + excluded.duration_ms`,
        chunk.flatMap((s) => [
          s.minute,
          s.service,
          s.model,
          s.trajectories,
          s.steps,
          s.toolCalls,
          s.failedCalls,
          s.tokens,
          s.withTokens,
          s.durationMs,
        ]),
      );
    }
    for (let i = 0; i < bucketRows.length; i += ROWS_PER_STATEMENT) {
      const chunk = bucketRows.slice(i, i + ROWS_PER_STATEMENT);
      tx.run(
        `INSERT INTO trajectory_buckets (minute, service, model, measure, bucket, count)
         VALUES ${valuesList(chunk.length, 6)}
         ON CONFLICT (minute, service, model, measure, bucket)
         DO UPDATE SET count = trajectory_buckets.count + excluded.count`,
        chunk.flatMap((b) => [b.minute, b.service, b.model, b.measure, b.bucket, b.count]),
      );
    }
  };
}

/** One measure over a window: nearest-rank median and 90th percentile (bucket upper bounds) and the exact mean. */
export interface MeasureStats {
  median: number | null;
  p90: number | null;
  mean: number | null;
}

export interface TrajectoryStats {
  trajectories: number;
  steps: MeasureStats;
  toolCalls: MeasureStats;
  failedCalls: MeasureStats;
  /** Over the trajectories that reported tokens (`trajectories` of them). */
  tokens: MeasureStats & { trajectories: number };
  durationSeconds: MeasureStats;
}

export interface TrajectoryGroup {
  service: string;
  model: string;
  stats: TrajectoryStats;
}

export interface TrajectoryQuery {
  sinceMs: number;
  untilMs: number;
  service?: string;
  /** Only services matching one of these globs (a reader's view). */
  services?: readonly string[];
}

interface Raw {
  service: string;
  model: string;
  sums: Omit<Sums, 'minute' | 'service' | 'model'>;
  buckets: Map<Measure, Map<number, number>>;
}

/** Per service and model, and per service (every model together), over the window; most trajectories first. */
export async function trajectoryStats(
  sql: Sql,
  q: TrajectoryQuery,
): Promise<{ services: { service: string; stats: TrajectoryStats }[]; models: TrajectoryGroup[] }> {
  const args: unknown[] = [q.sinceMs, q.untilMs];
  let where = 'minute >= ? AND minute < ?';
  if (q.service !== undefined) (where += ' AND service = ?'), args.push(q.service);
  if (q.services) where += ` AND ${servicesMatch(sql.dialect, 'service', q.services, (v) => (args.push(v), '?'))}`;
  const [sums, buckets] = await Promise.all([
    sql.all(
      `SELECT service, model, SUM(trajectories) AS trajectories, SUM(steps) AS steps, SUM(tool_calls) AS tool_calls,
         SUM(failed_calls) AS failed_calls, SUM(tokens) AS tokens, SUM(with_tokens) AS with_tokens,
         SUM(duration_ms) AS duration_ms
       FROM trajectory_minutes WHERE ${where} GROUP BY service, model`,
      args,
    ),
    sql.all(
      `SELECT service, model, measure, bucket, SUM(count) AS n FROM trajectory_buckets WHERE ${where}
       GROUP BY service, model, measure, bucket`,
      args,
    ),
  ]);
  const models = new Map<string, Raw>();
  const services = new Map<string, Raw>();
  const get = (into: Map<string, Raw>, service: string, model: string): Raw => {
    const k = JSON.stringify([service, model]);
    let g = into.get(k);
    if (!g) into.set(k, (g = { service, model, sums: emptySums(), buckets: new Map() }));
    return g;
  };
  for (const r of sums) {
    const row: Raw['sums'] = {
      trajectories: num(r.trajectories),
      steps: num(r.steps),
      toolCalls: num(r.tool_calls),
      failedCalls: num(r.failed_calls),
      tokens: num(r.tokens),
      withTokens: num(r.with_tokens),
      durationMs: num(r.duration_ms),
    };
    for (const g of [get(models, String(r.service), String(r.model)), get(services, String(r.service), '')]) {
      for (const k of Object.keys(row) as (keyof Raw['sums'])[]) g.sums[k] += row[k];
    }
  }
  for (const r of buckets) {
    const m = String(r.measure) as Measure;
    const bucket = num(r.bucket);
    for (const g of [get(models, String(r.service), String(r.model)), get(services, String(r.service), '')]) {
      let b = g.buckets.get(m);
      if (!b) g.buckets.set(m, (b = new Map()));
      b.set(bucket, (b.get(bucket) ?? 0) + num(r.n));
    }
  }
  const order = (a: { service: string; model?: string; stats: TrajectoryStats }, b: typeof a) =>
    b.stats.trajectories - a.stats.trajectories ||
    a.service.localeCompare(b.service) ||
    (a.model ?? '').localeCompare(b.model ?? '');
  return {
    services: [...services.values()].map((g) => ({ service: g.service, stats: statsOf(g) })).sort(order),
    models: [...models.values()].map((g) => ({ service: g.service, model: g.model, stats: statsOf(g) })).sort(order),
  };
}

function statsOf(g: Raw): TrajectoryStats {
  const s = g.sums;
  const n = s.trajectories;
  const m = (measure: Measure, total: number, count = n, scale = 1): MeasureStats => {
    const b = g.buckets.get(measure) ?? new Map<number, number>();
    const med = quantile(b, 0.5);
    const p90 = quantile(b, 0.9);
    return {
      median: med === null ? null : med / scale,
      p90: p90 === null ? null : p90 / scale,
      mean: count > 0 ? total / count / scale : null,
    };
  };
  return {
    trajectories: n,
    steps: m('steps', s.steps),
    toolCalls: m('tool_calls', s.toolCalls),
    failedCalls: m('failed_calls', s.failedCalls),
    tokens: { ...m('tokens', s.tokens, s.withTokens), trajectories: s.withTokens },
    durationSeconds: m('duration_ms', s.durationMs, n, 1000),
  };
}

/** Deletes rows older than the cutoff (the retention job). */
export async function pruneTrajectories(sql: Sql, beforeMs: number): Promise<number> {
  return sql.tx(async (tx) => {
    let removed = await tx.run('DELETE FROM trajectory_minutes WHERE minute < ?', [beforeMs]);
    removed += await tx.run('DELETE FROM trajectory_buckets WHERE minute < ?', [beforeMs]);
    return removed;
  });
}
