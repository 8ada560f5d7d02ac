/**
 * Trajectory efficiency over a window (GET /api/stats `trajectories`, the page's models section): per
 * service, and per service and model, the median, 90th percentile and mean of model steps, tool calls,
 * failed calls, tokens and wall time of the trajectories that completed in the window's minutes — read
 * from the per-minute buckets every replica adds to (src/efficiency/store.ts), through the reader's view.
 */
import { trajectoryStats, type TrajectoryGroup, type TrajectoryStats } from '../efficiency/store.js';
import { MINUTE_MS, minuteOf } from '../store/store.js';
import type { Reader } from './reader.js';
import { storeFilter } from '../util/service-view.js';

export type { TrajectoryStats };

export interface Efficiency {
  services: { service: string; stats: TrajectoryStats }[];
  models: TrajectoryGroup[];
}

export async function efficiency(
  r: Reader,
  q: { windowMs: number; nowMs: number; service?: string },
): Promise<Efficiency> {
  const windowMs = Math.max(MINUTE_MS, q.windowMs);
  const untilMs = minuteOf(q.nowMs) + MINUTE_MS;
  return trajectoryStats(r.store.sql, {
    sinceMs: untilMs - windowMs,
    untilMs,
    ...(q.service ? { service: q.service } : {}),
    ...storeFilter(r.view),
  });
}
