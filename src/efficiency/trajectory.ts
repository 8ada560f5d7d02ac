/**
 * What the trajectory tracker (tracker.ts) is told to keep and what it hands out: one completed
 * trajectory, as stored (efficiency/store.ts) and observed in the histograms. Its own file so the
 * readers of the record need not read the tracker's columns.
 */
import type { SpanFacts } from '../model.js';
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

/** What a trajectory takes from a span's facts: little enough to keep while its batch commits. */
export type TrajectorySpan = Pick<
  SpanFacts,
  | 'traceId'
  | 'spanId'
  | 'parentSpanId'
  | 'role'
  | 'startTimeMs'
  | 'endTimeMs'
  | 'model'
  | 'inputTokens'
  | 'outputTokens'
>;

/**
 * The spans of a batch a trajectory counts — model and agent spans, and spans with calls or an
 * execution —, copied down to what it reads, so a batch's facts (their texts, lazy histories) need
 * not outlive its reading while it waits for its commit.
 */
export function trajectorySpans(facts: readonly SpanFacts[]): TrajectorySpan[] {
  const out: TrajectorySpan[] = [];
  for (const f of facts) {
    if (f.role !== 'model' && !f.execution && f.proposals.length === 0 && f.role !== 'agent') continue;
    out.push({
      traceId: f.traceId,
      spanId: f.spanId,
      parentSpanId: f.parentSpanId,
      role: f.role,
      startTimeMs: f.startTimeMs,
      endTimeMs: f.endTimeMs,
      model: f.model,
      inputTokens: f.inputTokens,
      outputTokens: f.outputTokens,
    });
  }
  return out;
}
