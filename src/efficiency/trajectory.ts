/**
 * What the trajectory tracker (tracker.ts) is told to keep and what it hands out: one completed
 * trajectory, as stored (efficiency/store.ts) and observed in the histograms. Its own file so the
 * readers of the record need not read the tracker's columns.
 */
import type { Repair } from './repairs.js';

export interface TrajectoryOptions {
  idleMs: number;
  maxTraces: number;
}

export interface CompletedTrajectory {
  traceId: string;
  /** The service of its calls, as stored (clipped, never capped). */
  service: string;
  /** Its model, as stored for its calls (clipped, never capped), '' when none was reported. */
  model: string;
  /** The end of its last span (ms): the minute it is stored under. */
  endMs: number;
  steps: number;
  toolCalls: number;
  failedCalls: number;
  /** null when no step reported tokens. */
  tokens: number | null;
  durationMs: number;
  /** Its repair turns (repairs.ts); absent when nothing failed with a problem filed. */
  repairs?: Repair[];
}
