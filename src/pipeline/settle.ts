/**
 * The timer path of the pipeline: what waited is counted here, apart from the per-batch flow
 * (pipeline.ts). Tool-span-only calls whose grace ended (the pending rows this process holds:
 * pending-owner.ts), executions whose status grace ended (executions.ts), trajectories gone idle
 * (efficiency/tracker.ts); at shutdown, everything held. Each is one store write; on a store error
 * everything is put back and the next run tries again. Pending rows taken over are restored here too.
 */
import type { CheckedCall, ReleasedExecution, SourceName } from '../model.js';
import type { PendingRow } from '../store/store.js';
import { emptyBatch } from '../store/store.js';
import { trajectoryExtension } from '../efficiency/store.js';
import type { CallEntry, PendingCall } from './ledger.js';
import type { ExecutionHold } from './executions.js';
import { decodePending, storedPendingKey } from './pending-payload.js';
import { type CallLabels, callLabels, peekLabel } from './call-labels.js';
import { buildWrite, type FailureCap, type WritePlan } from './write-batch.js';
import type { BatchMetrics, TrajectoryHistograms } from './batch-metrics.js';
import type { CallChecker } from './call-check.js';
import type { PipelineDeps, RestoreResult } from './ports.js';

/** What the settle path shares with the per-batch flow (one of each per pipeline). */
export interface SettleParts {
  deps: PipelineDeps;
  /** The id this process holds pending rows under. */
  owner: string;
  failureCap: FailureCap;
  executions: ExecutionHold;
  metrics: BatchMetrics;
  checker: CallChecker;
}

export class Settler {
  constructor(private readonly parts: SettleParts) {}

  /** Counts the calls whose grace ended by nowMs and whose rows this process still holds; returns how many. */
  async settleCalls(nowMs: number): Promise<number> {
    const { deps, owner, failureCap, checker } = this.parts;
    const due = deps.ledger.takeDue(nowMs);
    if (due.length === 0) return 0;
    const wall = this.stamp(nowMs);
    const bySource = new Map<SourceName, PendingCall[]>();
    for (const p of due) {
      const of = bySource.get(p.source);
      if (of) of.push(p);
      else bySource.set(p.source, [p]);
    }
    let counted = 0;
    for (const [source, items] of bySource) {
      const keys = items.map((p) => storedPendingKey(p.traceId, p.key));
      const bounds = checker.bounds();
      const calls = items.map((p) => checker.check(p.call, source, wall, bounds));
      const labels = calls.map((c, i) => callLabels(c, deps.labels, items[i]!.call.budget));
      let held: CheckedCall[] = [];
      let heldLabels: CallLabels[] = [];
      let heldEntries: (CallEntry | undefined)[] = [];
      let heldBudgets: (string | undefined)[] = [];
      let plan: WritePlan | undefined;
      try {
        await deps.store.settlePending(owner, keys, (taken) => {
          const still = new Set(taken.map((k) => `${k.traceId}\u0000${k.callKey}`));
          const mine = keys.flatMap((k, i) => (still.has(`${k.traceId}\u0000${k.callKey}`) ? [i] : []));
          held = mine.map((i) => calls[i]!);
          heldLabels = mine.map((i) => labels[i]!);
          heldEntries = mine.map((i) => items[i]!.entry);
          heldBudgets = mine.map((i) => items[i]!.call.budget);
          plan = buildWrite(source, held, heldLabels, [], failureCap, wall, deps.redactor);
          const counted = deps.counted?.extension(held, heldLabels, []);
          return { ...plan.rows, pendingAdd: [], pendingRemove: [], extensions: counted ? [counted] : [] };
        });
      } catch (err) {
        deps.ledger.restore(items, nowMs);
        deps.writeHealth?.failed(err);
        throw err;
      }
      deps.writeHealth?.succeeded();
      if (!plan) continue;
      plan.commitCaps();
      // Counted now, but due when their grace ended: the trajectory's idle clock runs from then.
      const dueMs = Math.min(
        nowMs,
        items.reduce((m, p) => Math.max(m, p.dueMs), 0),
      );
      this.parts.metrics.count(source, held, heldLabels, heldEntries, plan, 0, dueMs, (i) => heldBudgets[i]);
      counted += held.length;
    }
    return counted;
  }

  /** Writes released executions (their minute aggregates), then moves their metrics; put back on a store error. */
  async countExecutions(released: readonly ReleasedExecution[], nowMs: number): Promise<void> {
    if (released.length === 0) return;
    const { deps, failureCap } = this.parts;
    const batch = emptyBatch();
    const bySource = new Map<SourceName, ReleasedExecution[]>();
    for (const e of released) {
      const list = bySource.get(e.source);
      if (list) list.push(e);
      else bySource.set(e.source, [e]);
    }
    for (const [source, items] of bySource) {
      const plan = buildWrite(source, [], [], items, failureCap, this.stamp(nowMs), deps.redactor);
      for (const row of plan.rows.executionAggregates) batch.executionAggregates.push(row);
    }
    const filed = deps.counted?.executions?.(released);
    if (filed) batch.extensions.push(filed);
    try {
      await deps.store.write(batch);
    } catch (err) {
      this.parts.executions.restore(released, nowMs);
      throw err;
    }
    // The counter moves by the rows just written (one inc per row, not per execution); the histogram per execution.
    const m = deps.metrics;
    const cap = deps.labels;
    for (const r of batch.executionAggregates) {
      const service = peekLabel(cap, 'service', r.service);
      m.toolExecutions.inc(
        { service, tool: peekLabel(cap, 'tool', r.tool), status: r.status, call_outcome: r.callOutcome },
        r.count,
      );
    }
    let dueMs = 0;
    for (const e of released) {
      this.parts.metrics.durationOf(e.service, e.tool).observe(e.durationMs / 1000);
      if (e.dueMs > dueMs) dueMs = e.dueMs;
    }
    deps.trajectories?.executions(released, Math.min(nowMs, dueMs));
  }

  /** Writes the trajectories that went idle (all: every one in flight), then observes their histograms. */
  async countTrajectories(nowMs: number, all: boolean): Promise<void> {
    const { deps } = this.parts;
    const tracker = deps.trajectories;
    if (!tracker) return;
    const done = tracker.takeIdle(nowMs, all);
    const extension = trajectoryExtension(done);
    if (!extension) return;
    const repairs = deps.counted?.trajectories?.(done);
    try {
      await deps.store.write({ ...emptyBatch(), extensions: repairs ? [extension, repairs] : [extension] });
    } catch (err) {
      tracker.restore(done);
      throw err;
    }
    const m = deps.metrics;
    let last: string | undefined;
    let h: TrajectoryHistograms | undefined;
    for (const t of done) {
      // A trajectory's service is stored as its calls were; its label, as their metric's (capped).
      if (t.service !== last || !h)
        (h = this.parts.metrics.trajectoryHistograms(peekLabel(deps.labels, 'service', t.service), m)),
          (last = t.service);
      h.toolCalls.observe(t.toolCalls);
      h.steps.observe(t.steps);
      h.failedCalls.observe(t.failedCalls);
      h.duration.observe(t.durationMs / 1000);
      if (t.tokens !== null) h.tokens.observe(t.tokens);
    }
  }

  /**
   * Puts back pending calls this process took over (pending-owner.ts: at start, or those of a process
   * gone since); a row that cannot be read is reported, not counted; a call this process already
   * counted from its proposal is reported as superseded. `tick` reads the timers' clock.
   */
  restorePending(rows: readonly PendingRow[], tick: () => number): RestoreResult {
    const { deps } = this.parts;
    const items: PendingCall[] = [];
    const unreadable: RestoreResult['unreadable'] = [];
    // A row's due time is on its writer's timer clock; after a wall-clock jump there it may lie far
    // ahead: a call never waits longer than one grace period from now.
    const latest = tick() + deps.executionGraceMs;
    for (const r of rows) {
      const d = decodePending(r);
      if (d.ok) items.push(d.call.dueMs > latest ? { ...d.call, dueMs: latest } : d.call);
      else unreadable.push({ traceId: r.traceId, callKey: r.callKey, reason: d.reason });
    }
    const superseded = deps.ledger.restore(items, tick());
    return {
      restored: items.length - superseded.length,
      unreadable,
      superseded: superseded.map((p) => storedPendingKey(p.traceId, p.key)),
    };
  }

  /**
   * The wall-clock time to store for a timer reading: the wall clock's own when the timers run on it
   * (tests that pass their own `nowMs`), else now.
   */
  private stamp(tickMs: number): number {
    return this.parts.deps.steady ? this.parts.deps.now() : tickMs;
  }
}
