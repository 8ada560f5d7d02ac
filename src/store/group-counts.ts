/**
 * The count rows of a group commit's batches, summed per row key: one upsert per distinct minute
 * aggregate or drop row of the group instead of one per batch. Upserts that add counts commute with
 * everything else a batch writes, so applying them first, summed, stores exactly what applying each
 * batch's own rows would (the counters stay exact); a group usually holds batches of the same few
 * services, tools and outcomes (issue 22: each upsert is tens of microseconds of SQLite work).
 */
import type { CallAggregate, ExecutionAggregate, FailureDrop, WriteBatch } from './store.js';

export interface GroupCounts {
  callAggregates: CallAggregate[];
  executionAggregates: ExecutionAggregate[];
  failureDrops: FailureDrop[];
}

export function groupCounts(batches: readonly WriteBatch[]): GroupCounts {
  const calls = new Map<string, CallAggregate>();
  const execs = new Map<string, ExecutionAggregate>();
  const drops = new Map<string, FailureDrop>();
  for (const b of batches) {
    for (const r of b.callAggregates) {
      const k = `${r.minute}\u0000${r.source}\u0000${r.service}\u0000${r.model}\u0000${r.tool}\u0000${r.outcome}\u0000${r.reason}`;
      const had = calls.get(k);
      if (had) had.count += r.count;
      else calls.set(k, { ...r });
    }
    for (const r of b.executionAggregates) {
      const k = `${r.minute}\u0000${r.source}\u0000${r.service}\u0000${r.model}\u0000${r.tool}\u0000${r.status}\u0000${r.callOutcome}`;
      const had = execs.get(k);
      if (had) had.count += r.count;
      else execs.set(k, { ...r });
    }
    for (const r of b.failureDrops) {
      const k = `${r.minute}\u0000${r.service}\u0000${r.tool}`;
      const had = drops.get(k);
      if (had) had.dropped += r.dropped;
      else drops.set(k, { ...r });
    }
  }
  return {
    callAggregates: [...calls.values()],
    executionAggregates: [...execs.values()],
    failureDrops: [...drops.values()],
  };
}
