/**
 * The tracker's repair-event bookkeeping, per slot: a trace's failures and what came after them
 * (repairs.ts turns them into repair turns), from its first failure on, bounded per trace. Apart
 * from tracker.ts, whose columns count steps, calls and tokens; this keeps only what repairs need.
 */
import type { RepairEvent } from './repairs.js';

/** At most this many failures and recoveries are kept per trace for its repair turns. */
const MAX_REPAIR_EVENTS = 256;

export class RepairEvents {
  /** Failures and what came after them, from a trace's first failure on. */
  private readonly bySlot: (RepairEvent[] | undefined)[] = [];
  /** Traces with repair events: executions that succeed are looked up only while there are any. */
  private holding = 0;

  /** Whether any trace holds repair events. */
  get any(): boolean {
    return this.holding !== 0;
  }

  of(slot: number): RepairEvent[] | undefined {
    return this.bySlot[slot];
  }

  add(
    slot: number,
    kind: RepairEvent['kind'],
    failed: boolean,
    timeMs: number,
    tool: string,
    service: string,
    model: string,
    problemId: string | undefined,
  ): void {
    let list = this.bySlot[slot];
    if (!list) {
      this.bySlot[slot] = list = [];
      this.holding++;
    }
    // Bounded: a trace that fails without end keeps its first failures and what came after them.
    if (list.length < MAX_REPAIR_EVENTS) list.push({ kind, failed, timeMs, tool, service, model, problemId });
  }

  /** Forgets a freed slot's events. */
  clear(slot: number): void {
    if (this.bySlot[slot]) {
      this.bySlot[slot] = undefined;
      this.holding--;
    }
  }
}
