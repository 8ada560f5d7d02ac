/**
 * The repair turns of a trajectory: what the agent spent after a failed call until it made a valid
 * call of the same tool, gave up or the trajectory ended — tokens and wall time, filed under the
 * failure's problem (its signature's hash, set by the problem recorder on the counted call or
 * execution). Pure: the tracker hands over a trace's failures and recoveries and its model steps.
 *
 * Rules:
 * - a failed call (InvalidJson, SchemaMismatch) is repaired by the next call of the same tool that
 *   passes its check (or cannot be checked); an UnknownName by the next such call of any tool; a
 *   failed execution by the next execution of the same tool that succeeds;
 * - failures of the same tool and kind while one is being repaired are retries of that repair, not
 *   repairs of their own (so three failures then a success cost one repair, not three overlapping
 *   ones); the repair is filed under the problem of its first failure;
 * - a repair's steps are the model steps that start at or after the failure (its span's end) and,
 *   when repaired, before the valid call (the end of the span that proposed it); its wall time runs
 *   from the failure to the valid call, else to the trajectory's last span end;
 * - tokens are the steps' input and output tokens, each step counted once (as the trajectory counts them).
 */

/** One failure or recovery in a trace, in the order it was counted. */
export interface RepairEvent {
  /** `call`: a structural check; `exec`: an execution. */
  kind: 'call' | 'exec';
  failed: boolean;
  timeMs: number;
  /** The tool label; `_unknown` for an invented name. */
  tool: string;
  service: string;
  model: string;
  /** The failure's problem (failed events only). */
  problemId?: string | undefined;
}

export interface Repair {
  service: string;
  problemId: string;
  /** The model label of the failure that opened it. */
  model: string;
  repaired: boolean;
  /** Further failures of the same tool while it was being repaired. */
  retries: number;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
  /** When it ended (the valid call, else the trajectory's end): the day its cost is stored under. */
  endMs: number;
}

/** A model step as the tracker keeps it: start time and the tokens counted for it (0 when none). */
export interface StepCost {
  startMs: number;
  inputTokens: number;
  outputTokens: number;
}

const UNKNOWN_TOOL = '_unknown';

export function repairsOf(events: readonly RepairEvent[], steps: readonly StepCost[], traceEndMs: number): Repair[] {
  const ordered = inOrder(events) ? events : [...events].sort(byTime);
  // The open repairs, one per kind and tool, in the order a map keyed by them would hold them.
  const open: Open[] = [];
  const out: Repair[] = [];
  for (const e of ordered) {
    if (e.failed) {
      if (e.problemId === undefined) continue;
      const o = open[openOf(open, e.kind, e.tool)];
      if (o) o.retries++;
      else open.push({ e, retries: 0 });
      continue;
    }
    close(open, e, e.kind, e.tool, steps, out);
    // A valid call of any tool repairs an invented name.
    if (e.kind === 'call') close(open, e, 'call', UNKNOWN_TOOL, steps, out);
  }
  for (const o of open) out.push(repair(o, Math.max(o.e.timeMs, traceEndMs), false, steps));
  return out;
}

interface Open {
  e: RepairEvent;
  retries: number;
}

const byTime = (a: RepairEvent, b: RepairEvent) => a.timeMs - b.timeMs || Number(a.failed) - Number(b.failed);

/** Whether the events are sorted as repairsOf takes them already (they mostly are: no copy then). */
function inOrder(events: readonly RepairEvent[]): boolean {
  for (let i = 1; i < events.length; i++) if (byTime(events[i - 1]!, events[i]!) > 0) return false;
  return true;
}

function openOf(open: readonly Open[], kind: RepairEvent['kind'], tool: string): number {
  for (let i = 0; i < open.length; i++) if (open[i]!.e.kind === kind && open[i]!.e.tool === tool) return i;
  return -1;
}

/** Ends the open repair of that kind and tool, if any, with the valid event `by`. */
function close(
  open: Open[],
  by: RepairEvent,
  kind: RepairEvent['kind'],
  tool: string,
  steps: readonly StepCost[],
  out: Repair[],
): void {
  const i = openOf(open, kind, tool);
  if (i < 0 || open[i]!.e.timeMs > by.timeMs) return;
  out.push(repair(open[i]!, by.timeMs, true, steps));
  open.splice(i, 1);
}

/** Fields named, not spread: this runs for every trace that failed. */
function repair({ e, retries }: Open, endMs: number, repaired: boolean, steps: readonly StepCost[]): Repair {
  let n = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  for (const s of steps) {
    if (s.startMs < e.timeMs) continue;
    if (repaired && s.startMs >= endMs) continue;
    n++;
    inputTokens += s.inputTokens;
    outputTokens += s.outputTokens;
  }
  return {
    service: e.service,
    problemId: e.problemId!,
    model: e.model,
    repaired,
    retries,
    steps: n,
    inputTokens,
    outputTokens,
    durationMs: Math.max(0, endMs - e.timeMs),
    endMs,
  };
}
