/**
 * Per trajectory (a trace), while it is in flight: model steps, tool calls, failed calls, tokens and
 * wall time — for every trace, not only the judge's sample. A trace is complete when nothing of it
 * arrived for `idle` (spans, and calls or executions counted after their grace period); only traces
 * with at least one tool call become a trajectory.
 *
 * Bounded: at most `maxTraces` traces in memory, least recently touched completed first — a trace
 * pushed out before it went idle (more traces in flight than the bound) is observed as it stood, and
 * its later spans start a new trajectory; so does anything of a trace that arrives after its
 * trajectory was observed. Kept apart from the dedupe ledger: that one remembers only traces with
 * tool-bearing spans, for an hour; this one also counts the model steps without a call (the final
 * answer) and lets a trace go after a minute.
 *
 * Counting rules:
 * - a model step is a span read as a model request; a model span directly inside another one (an
 *   instrumentation wrapping another: LangChain over the OpenAI SDK, LiveKit's llm_request inside its
 *   llm_node) is the same step, and its tokens are counted once (the first of the two that reported
 *   any); a span seen again (a resent batch) is not counted again;
 * - tool calls are the calls counted (each once, as in toolwatch_tool_calls_total);
 * - failed calls are the calls that failed their structural check, plus those whose execution failed
 *   (any status but ok) without a structural failure — each call once;
 * - tokens are input + output tokens of the steps; a trajectory none of whose steps reported tokens
 *   has none (left out of the token statistics);
 * - wall time is the first start to the last end of its spans read by a dialect reader.
 * The trajectory's model is the one most of its steps used (the first of them on a tie), else the
 * model most of its calls came from.
 */
import { isFailure, type CheckedCall, type ReleasedExecution, type SpanFacts } from '../model.js';
import { grown } from '../util/typed-arrays.js';
import { bumpOther, most, type Others } from './model-tally.js';
import { SlotRing } from './slot-ring.js';
import { repairsOf } from './repairs.js';
import { idHash, NESTED, SEEN, StepSpans, TOKENS_NEARBY } from './step-spans.js';
import {
  trajectorySpans,
  type CompletedTrajectory,
  type TrajectoryOptions,
  type TrajectorySpan,
} from './trajectory.js';
import { RepairEvents, traceBucket } from './repair-events.js';
import { TraceTable } from './trace-table.js';

export type { CompletedTrajectory, TrajectoryOptions, TrajectorySpan } from './trajectory.js';
export { trajectorySpans } from './trajectory.js';

const FIRST_CAPACITY = 1024;

/**
 * The traces in flight, one slot each, as columns (typed arrays for the numbers, plain arrays for the
 * strings) rather than an object per trace: tens of thousands of traces add no object to the heap the
 * garbage collector has to walk — not even their ids (trace-table.ts keeps them as numbers).
 *
 * Touching a trace costs one lookup and no reordering. Finding idle traces walks every trace (a
 * few milliseconds at the bound, once a settle round), in the order they came. Making room evicts the
 * trace queued longest ago — its own ring of slots in queue order —, with a second chance at the
 * back for a trace touched since it was queued (the CLOCK approximation of least-recently-used).
 *
 * A trace pushed out with a call keeps its slot, out of the index, until the next takeIdle hands it
 * out (while spare slots last: past maxSlots the ones waiting are made records at once). Made a record
 * when pushed out, it lived until that settle round, long enough to reach the old generation.
 */
export class TrajectoryTracker {
  private readonly table = new TraceTable();
  private readonly free: number[] = [];
  private capacity = 0;
  private used = 0;
  /** Slots: at most maxTraces in flight, the rest pushed out and not handed out yet (or free). */
  private readonly maxSlots: number;
  /** Slots pushed out with a trajectory, in the order they went, until handed out. */
  private pending = new Int32Array(0);
  private pendingCount = 0;
  private readonly service: (string | undefined)[] = [];
  private readonly stepModel: (string | undefined)[] = [];
  private readonly callModel: (string | undefined)[] = [];
  private readonly stepOthers: (Others | undefined)[] = [];
  private readonly callOthers: (Others | undefined)[] = [];
  /** Failures and what came after them, for the repair turns (repair-events.ts). */
  private readonly repairs = new RepairEvents();
  /** Each trace's model spans (step-spans.ts). */
  private readonly stepSpans = new StepSpans();
  private firstMs = new Float64Array(0);
  private lastMs = new Float64Array(0);
  private touchedMs = new Float64Array(0);
  private queuedMs = new Float64Array(0);
  private tokens = new Float64Array(0);
  private steps = new Int32Array(0);
  private callCount = new Int32Array(0);
  private failed = new Int32Array(0);
  private stepModelN = new Int32Array(0);
  private callModelN = new Int32Array(0);
  /** Bumped when a slot leaves the index (freed or pushed out): a ring entry of an older generation is stale. */
  private gen = new Int32Array(0);
  /** Slots in queue order, for eviction (src/efficiency/slot-ring.ts). */
  private readonly ring = new SlotRing(FIRST_CAPACITY, (slot, gen) => gen === this.gen[slot]);
  private hasTokens = new Uint8Array(0);
  /** Pushed out by the bound before going idle and made records (restored, or past the spare slots): handed out first. */
  private evicted: CompletedTrajectory[] = [];

  constructor(
    private readonly opts: TrajectoryOptions,
    /** The model label a step's model is counted under (the calls' label cap). */
    /** A step model as stored (clipped: pipeline/write-batch.ts storedName). */
    private readonly modelName: (model: string) => string,
  ) {
    // A quarter more slots than traces followed: a settle round's pushed-out traces at the bench's max.
    this.maxSlots = opts.maxTraces + Math.max(FIRST_CAPACITY, opts.maxTraces >> 2);
  }

  get size(): number {
    return this.table.size;
  }

  /** A committed batch's spans: model steps, tokens, the trace's time range. */
  spans(facts: readonly SpanFacts[], nowMs: number): void {
    this.spansRead(trajectorySpans(facts), nowMs);
  }

  /** A committed batch's spans as trajectorySpans read them before the commit (see spans). */
  spansRead(items: readonly TrajectorySpan[], nowMs: number): void {
    // A batch holds a trace's spans mostly side by side: one lookup per run of them.
    let id: string | undefined;
    let slot = -1;
    for (const f of items) {
      const traceId = f.traceId;
      if (id !== traceId) {
        slot = this.trace(traceId, nowMs);
        id = traceId;
      }
      const start = f.startTimeMs;
      const end = f.endTimeMs;
      if (start && start < this.firstMs[slot]!) this.firstMs[slot] = start;
      if (end > this.lastMs[slot]!) this.lastMs[slot] = end;
      if (f.role === 'model') this.step(slot, f, start);
    }
  }

  /** Calls counted (each once), with their labels. */
  calls(
    calls: readonly CheckedCall[],
    labels: readonly { service: string; model: string; tool?: string }[],
    nowMs: number,
  ): void {
    let id: string | undefined;
    let slot = -1;
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i]!;
      const l = labels[i]!;
      if (id !== c.traceId) {
        slot = this.trace(c.traceId, nowMs);
        id = c.traceId;
      }
      this.service[slot] ??= l.service;
      this.callCount[slot]!++;
      const first = this.callModel[slot];
      if (first === undefined || first === l.model) {
        this.callModel[slot] = l.model;
        this.callModelN[slot]!++;
      } else bumpOther((this.callOthers[slot] ??= []), l.model);
      const failed = isFailure(c.outcome.outcome);
      if (failed) this.failed[slot]!++;
      if (failed ? c.problemId !== undefined : this.repairs.has(slot))
        this.repairs.add(
          slot,
          traceBucket(c.traceId),
          'call',
          failed,
          c.timeMs,
          l.tool ?? c.name,
          l.service,
          l.model,
          c.problemId,
        );
    }
  }

  /** Executions counted: a failed one adds a failed call unless its call already failed its check. */
  executions(items: readonly ReleasedExecution[], nowMs: number): void {
    for (const e of items) {
      if (e.status === 'ok') {
        // A success ends the repair of the same tool's failed executions.
        if (!this.repairs.any) continue;
        const bucket = traceBucket(e.traceId);
        if (!this.repairs.mayHold(bucket)) continue;
        const slot = this.table.find(e.traceId);
        if (slot >= 0 && this.repairs.has(slot))
          this.repairs.add(slot, bucket, 'exec', false, e.timeMs, e.tool, e.service, e.model, undefined);
        continue;
      }
      const slot = this.trace(e.traceId, nowMs);
      if (e.problemId !== undefined)
        this.repairs.add(slot, traceBucket(e.traceId), 'exec', true, e.timeMs, e.tool, e.service, e.model, e.problemId);
      const o = e.callOutcome;
      if (o === 'InvalidJson' || o === 'UnknownName' || o === 'SchemaMismatch') continue;
      this.failed[slot]!++;
    }
  }

  /**
   * Removes and returns the trajectories complete at nowMs (idle for `idle`), and those the bound
   * pushed out since the last call; `all`: every trace in flight (shutdown). Traces without a call
   * are dropped, not returned.
   */
  takeIdle(nowMs: number, all = false): CompletedTrajectory[] {
    const out = this.evicted;
    this.evicted = [];
    this.handOutPending(out);
    const idle = this.opts.idleMs;
    for (let slot = this.table.first(); slot >= 0; ) {
      const next = this.table.after(slot);
      if (all || nowMs - this.touchedMs[slot]! >= idle) {
        this.table.remove(slot);
        const done = this.release(slot);
        if (done) out.push(done);
      }
      slot = next;
    }
    return out;
  }

  /** Puts completed trajectories back after their write failed (at most maxTraces wait; older ones are dropped). */
  restore(items: readonly CompletedTrajectory[]): void {
    this.handOutPending(this.evicted);
    this.evicted = [...items, ...this.evicted].slice(-this.opts.maxTraces);
  }

  /** The pushed-out slots' trajectories onto `out`, in the order they were pushed out; their slots freed. */
  private handOutPending(out: CompletedTrajectory[]): void {
    for (let i = 0; i < this.pendingCount; i++) out.push(this.release(this.pending[i]!)!);
    this.pendingCount = 0;
  }

  private step(slot: number, f: TrajectorySpan, startMs: number): void {
    const id = idHash(f.spanId);
    const parentId = f.parentSpanId;
    const parent = parentId ? idHash(parentId) : -1;
    const found = this.stepSpans.look(slot, id, parent);
    if (found === SEEN) return; // a resent batch
    const input = f.inputTokens;
    const output = f.outputTokens;
    const countTokens = (input !== undefined || output !== undefined) && (found & TOKENS_NEARBY) === 0;
    const inTokens = countTokens ? (input ?? 0) : 0;
    const outTokens = countTokens ? (output ?? 0) : 0;
    this.stepSpans.add(slot, id, parent, countTokens, startMs, inTokens, outTokens);
    if (countTokens) {
      this.tokens[slot]! += inTokens + outTokens;
      this.hasTokens[slot] = 1;
    }
    if (found & NESTED) return;
    this.steps[slot]!++;
    const model = f.model ?? '';
    const first = this.stepModel[slot];
    if (first === undefined || first === model) {
      this.stepModel[slot] = model;
      this.stepModelN[slot]!++;
    } else bumpOther((this.stepOthers[slot] ??= []), model);
  }

  /** Frees the slot; the trajectory it held, if it made any call. */
  private release(slot: number): CompletedTrajectory | undefined {
    const service = this.service[slot];
    const calls = this.callCount[slot]!;
    let done: CompletedTrajectory | undefined;
    if (calls > 0 && service !== undefined) {
      const stepModel = most(this.stepModel[slot], this.stepModelN[slot]!, this.stepOthers[slot]);
      const model =
        stepModel !== undefined && stepModel !== ''
          ? this.modelName(stepModel)
          : (most(this.callModel[slot], this.callModelN[slot]!, this.callOthers[slot]) ?? '');
      const first = this.firstMs[slot]!;
      const last = this.lastMs[slot]!;
      done = {
        traceId: this.table.idOf(slot),
        service,
        model,
        endMs: last || this.touchedMs[slot]!,
        steps: this.steps[slot]!,
        toolCalls: calls,
        failedCalls: this.failed[slot]!,
        tokens: this.hasTokens[slot] ? this.tokens[slot]! : null,
        durationMs: last > 0 && first < Number.POSITIVE_INFINITY ? Math.max(0, last - first) : 0,
      };
      const events = this.repairs.of(slot);
      if (events !== undefined) {
        const repairs = repairsOf(events, this.stepSpans.costs(slot), done.endMs);
        if (repairs.length > 0) done.repairs = repairs;
      }
    }
    this.repairs.clear(slot);
    this.table.forget(slot);
    this.service[slot] = undefined;
    this.stepModel[slot] = undefined;
    this.callModel[slot] = undefined;
    this.stepOthers[slot] = undefined;
    this.callOthers[slot] = undefined;
    this.stepSpans.clear(slot);
    this.gen[slot]!++;
    this.free.push(slot);
    return done;
  }

  /** The trace's slot (taken if new), touched at nowMs. */
  private trace(traceId: string, nowMs: number): number {
    const known = this.table.find(traceId);
    if (known >= 0) {
      // Calls and executions counted after their grace period touch the trace as of when they were due.
      if (nowMs > this.touchedMs[known]!) this.touchedMs[known] = nowMs;
      return known;
    }
    while (this.table.size >= this.opts.maxTraces) {
      const old = this.ring.shift();
      if (old < 0) break;
      if (this.touchedMs[old]! > this.queuedMs[old]!) {
        // Touched since it was queued: a second chance at the back.
        this.queuedMs[old] = nowMs;
        this.ring.push(old, this.gen[old]!);
        continue;
      }
      this.evict(old);
    }
    const slot = this.free.pop() ?? this.newSlot();
    this.firstMs[slot] = Number.POSITIVE_INFINITY;
    this.lastMs[slot] = 0;
    this.touchedMs[slot] = nowMs;
    this.queuedMs[slot] = nowMs;
    this.tokens[slot] = 0;
    this.steps[slot] = 0;
    this.callCount[slot] = 0;
    this.failed[slot] = 0;
    this.stepModelN[slot] = 0;
    this.callModelN[slot] = 0;
    this.stepSpans.reset(slot);
    this.hasTokens[slot] = 0;
    this.table.add(traceId, slot);
    this.ring.push(slot, this.gen[slot]!);
    return slot;
  }

  /** Takes a slot out of the index: kept until the next takeIdle if it holds a trajectory, else freed. */
  private evict(slot: number): void {
    this.table.remove(slot);
    if (this.callCount[slot]! === 0 || this.service[slot] === undefined) {
      this.release(slot);
      return;
    }
    // Out of the ring's reach (its entries of this generation are stale now); freed when handed out.
    this.gen[slot]!++;
    if (this.pendingCount === this.pending.length) {
      this.pending = grown(this.pending, Math.max(64, this.pendingCount * 2));
    }
    this.pending[this.pendingCount++] = slot;
  }

  /** A slot never used before, else (all spare slots held by pushed-out traces) theirs, made records. */
  private newSlot(): number {
    if (this.used < this.maxSlots || this.pendingCount === 0) return this.grow();
    this.handOutPending(this.evicted);
    return this.free.pop()!;
  }

  /** A slot never used before; the numeric columns doubled when full (up to maxSlots). */
  private grow(): number {
    if (this.used === this.capacity) {
      const cap = Math.max(this.used + 1, Math.min(Math.max(FIRST_CAPACITY, this.capacity * 2), this.maxSlots));
      this.firstMs = grown(this.firstMs, cap);
      this.lastMs = grown(this.lastMs, cap);
      this.touchedMs = grown(this.touchedMs, cap);
      this.queuedMs = grown(this.queuedMs, cap);
      this.tokens = grown(this.tokens, cap);
      this.steps = grown(this.steps, cap);
      this.callCount = grown(this.callCount, cap);
      this.failed = grown(this.failed, cap);
      this.stepModelN = grown(this.stepModelN, cap);
      this.callModelN = grown(this.callModelN, cap);
      this.gen = grown(this.gen, cap);
      this.stepSpans.grow(cap);
      this.hasTokens = grown(this.hasTokens, cap);
      this.table.reserve(cap);
      this.capacity = cap;
    }
    return this.used++;
  }
}
