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
import { bumpOther, most, type Others } from './model-tally.js';
import { SlotRing } from './slot-ring.js';
import { repairsOf, type StepCost } from './repairs.js';
import {
  trajectorySpans,
  type CompletedTrajectory,
  type TrajectoryOptions,
  type TrajectorySpan,
} from './trajectory.js';
import { RepairEvents } from './repair-events.js';

export type { CompletedTrajectory, TrajectoryOptions, TrajectorySpan } from './trajectory.js';
export { trajectorySpans } from './trajectory.js';

/** 28 bits of a hex span id: a small integer, so the ids of a trace cost no object each. */
function idHash(spanId: string): number {
  const h = Number.parseInt(spanId.slice(-7), 16);
  return Number.isFinite(h) ? h : -2;
}

/** Model spans of a trace whose ids fit the fixed area of its slot; more go to an overflow array. */
const IDS_PER_SLOT = 4;
/** An overflow step: span id hash, parent hash, tokens counted, start ms, input and output tokens. */
const OVERFLOW_STRIDE = 6;
const FIRST_CAPACITY = 1024;

/**
 * The traces in flight, one slot each, as columns (typed arrays for the numbers, plain arrays for the
 * strings) rather than an object per trace: tens of thousands of traces add no object to the heap the
 * garbage collector has to walk, only the map from trace id to slot.
 *
 * Touching a trace costs one map lookup and no reordering. Finding idle traces walks the whole map (a
 * few milliseconds at the bound, once a settle round). Making room evicts the trace queued longest ago
 * — its own ring of slots in queue order, since taking the first key of a map that had many keys
 * deleted from its front costs time in proportion to those deletions —, with a second chance at the
 * back for a trace touched since it was queued (the CLOCK approximation of least-recently-used).
 */
export class TrajectoryTracker {
  private readonly slots = new Map<string, number>();
  private readonly free: number[] = [];
  private capacity = 0;
  private used = 0;
  private readonly traceId: (string | undefined)[] = [];
  private readonly service: (string | undefined)[] = [];
  private readonly stepModel: (string | undefined)[] = [];
  private readonly callModel: (string | undefined)[] = [];
  private readonly stepOthers: (Others | undefined)[] = [];
  private readonly callOthers: (Others | undefined)[] = [];
  private readonly idOverflow: (number[] | undefined)[] = [];
  /** Failures and what came after them, for the repair turns (repair-events.ts). */
  private readonly repairs = new RepairEvents();
  /** IDS_PER_SLOT × [start ms, input tokens, output tokens] per slot: the steps' cost, for the repair turns. */
  private stepCost = new Float64Array(0);
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
  private idCount = new Int32Array(0);
  /** Bumped when a slot is freed: a ring entry of an older generation is stale. */
  private gen = new Int32Array(0);
  /** Slots in queue order, for eviction (src/efficiency/slot-ring.ts). */
  private readonly ring = new SlotRing(
    FIRST_CAPACITY,
    (slot, gen) => gen === this.gen[slot] && this.traceId[slot] !== undefined,
  );
  private hasTokens = new Uint8Array(0);
  /** IDS_PER_SLOT × [span id hash, parent id hash (-1 for none), 1 if its tokens were counted] per slot. */
  private ids = new Int32Array(0);
  /** Pushed out by the bound before going idle: handed out with the next idle ones. */
  private evicted: CompletedTrajectory[] = [];

  constructor(
    private readonly opts: TrajectoryOptions,
    /** The model label a step's model is counted under (the calls' label cap). */
    /** A step model as stored (clipped: pipeline/write-batch.ts storedName). */
    private readonly modelName: (model: string) => string,
  ) {}

  get size(): number {
    return this.slots.size;
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
      if (id !== f.traceId) {
        slot = this.trace(f.traceId, nowMs);
        id = f.traceId;
      }
      if (f.startTimeMs && f.startTimeMs < this.firstMs[slot]!) this.firstMs[slot] = f.startTimeMs;
      if (f.endTimeMs > this.lastMs[slot]!) this.lastMs[slot] = f.endTimeMs;
      if (f.role === 'model') this.step(slot, f);
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
      if (failed ? c.problemId !== undefined : this.repairs.of(slot) !== undefined)
        this.repairs.add(slot, 'call', failed, c.timeMs, l.tool ?? c.name, l.service, l.model, c.problemId);
    }
  }

  /** Executions counted: a failed one adds a failed call unless its call already failed its check. */
  executions(items: readonly ReleasedExecution[], nowMs: number): void {
    for (const e of items) {
      if (e.status === 'ok') {
        // A success ends the repair of the same tool's failed executions.
        if (!this.repairs.any) continue;
        const slot = this.slots.get(e.traceId);
        if (slot !== undefined && this.repairs.of(slot))
          this.repairs.add(slot, 'exec', false, e.timeMs, e.tool, e.service, e.model, undefined);
        continue;
      }
      const slot = this.trace(e.traceId, nowMs);
      if (e.problemId !== undefined)
        this.repairs.add(slot, 'exec', true, e.timeMs, e.tool, e.service, e.model, e.problemId);
      const o = e.callOutcome;
      if (o === 'InvalidJson' || o === 'UnknownName' || o === 'SchemaMismatch') continue;
      this.failed[slot]!++;
    }
  }

  /** The steps of a slot with their start and counted tokens (for its repair turns). */
  private stepCosts(slot: number): StepCost[] {
    const out: StepCost[] = [];
    const n = Math.min(this.idCount[slot]!, IDS_PER_SLOT);
    for (let i = 0; i < n; i++) {
      const at = (slot * IDS_PER_SLOT + i) * 3;
      const c = this.stepCost;
      out.push({ startMs: c[at]!, inputTokens: c[at + 1]!, outputTokens: c[at + 2]! });
    }
    const more = this.idOverflow[slot];
    if (more)
      for (let i = 0; i < more.length; i += OVERFLOW_STRIDE)
        out.push({ startMs: more[i + 3]!, inputTokens: more[i + 4]!, outputTokens: more[i + 5]! });
    return out;
  }

  /**
   * Removes and returns the trajectories complete at nowMs (idle for `idle`), and those the bound
   * pushed out since the last call; `all`: every trace in flight (shutdown). Traces without a call
   * are dropped, not returned.
   */
  takeIdle(nowMs: number, all = false): CompletedTrajectory[] {
    const out = this.evicted;
    this.evicted = [];
    const idle = this.opts.idleMs;
    for (const [id, slot] of this.slots) {
      if (!all && nowMs - this.touchedMs[slot]! < idle) continue;
      this.slots.delete(id);
      const done = this.release(slot);
      if (done) out.push(done);
    }
    return out;
  }

  /** Puts completed trajectories back after their write failed (at most maxTraces wait; older ones are dropped). */
  restore(items: readonly CompletedTrajectory[]): void {
    this.evicted = [...items, ...this.evicted].slice(-this.opts.maxTraces);
  }

  private step(slot: number, f: TrajectorySpan): void {
    const id = idHash(f.spanId);
    const parent = f.parentSpanId ? idHash(f.parentSpanId) : -1;
    let nested = false;
    let tokensNearby = false;
    const n = this.idCount[slot]!;
    const base = slot * IDS_PER_SLOT * 3;
    const ids = this.ids;
    for (let i = 0, fixed = Math.min(n, IDS_PER_SLOT); i < fixed; i++) {
      const at = base + i * 3;
      if (ids[at] === id) return; // seen before (a resent batch)
      if (ids[at] === parent || ids[at + 1] === id) {
        nested = true;
        if (ids[at + 2] === 1) tokensNearby = true;
      }
    }
    const more = this.idOverflow[slot];
    if (more) {
      for (let i = 0; i < more.length; i += OVERFLOW_STRIDE) {
        if (more[i] === id) return;
        if (more[i] === parent || more[i + 1] === id) {
          nested = true;
          if (more[i + 2] === 1) tokensNearby = true;
        }
      }
    }
    const reported = f.inputTokens !== undefined || f.outputTokens !== undefined;
    const countTokens = reported && !tokensNearby;
    const inTokens = countTokens ? (f.inputTokens ?? 0) : 0;
    const outTokens = countTokens ? (f.outputTokens ?? 0) : 0;
    if (n < IDS_PER_SLOT) {
      const at = base + n * 3;
      ids[at] = id;
      ids[at + 1] = parent;
      ids[at + 2] = countTokens ? 1 : 0;
      const cost = this.stepCost;
      cost[at] = f.startTimeMs;
      cost[at + 1] = inTokens;
      cost[at + 2] = outTokens;
    } else (this.idOverflow[slot] ??= []).push(id, parent, countTokens ? 1 : 0, f.startTimeMs, inTokens, outTokens);
    this.idCount[slot] = n + 1;
    if (countTokens) {
      this.tokens[slot]! += (f.inputTokens ?? 0) + (f.outputTokens ?? 0);
      this.hasTokens[slot] = 1;
    }
    if (nested) return;
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
        traceId: this.traceId[slot]!,
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
      if (events) {
        const repairs = repairsOf(events, this.stepCosts(slot), done.endMs);
        if (repairs.length > 0) done.repairs = repairs;
      }
    }
    this.repairs.clear(slot);
    this.traceId[slot] = undefined;
    this.service[slot] = undefined;
    this.stepModel[slot] = undefined;
    this.callModel[slot] = undefined;
    this.stepOthers[slot] = undefined;
    this.callOthers[slot] = undefined;
    this.idOverflow[slot] = undefined;
    this.gen[slot]!++;
    this.free.push(slot);
    return done;
  }

  /** The trace's slot (taken if new), touched at nowMs. */
  private trace(traceId: string, nowMs: number): number {
    const known = this.slots.get(traceId);
    if (known !== undefined) {
      // Calls and executions counted after their grace period touch the trace as of when they were due.
      if (nowMs > this.touchedMs[known]!) this.touchedMs[known] = nowMs;
      return known;
    }
    while (this.slots.size >= this.opts.maxTraces) {
      const old = this.ring.shift();
      if (old < 0) break;
      if (this.touchedMs[old]! > this.queuedMs[old]!) {
        // Touched since it was queued: a second chance at the back.
        this.queuedMs[old] = nowMs;
        this.ring.push(old, this.gen[old]!);
        continue;
      }
      this.slots.delete(this.traceId[old]!);
      const done = this.release(old);
      if (done) this.evicted.push(done);
    }
    const slot = this.free.pop() ?? this.grow();
    this.traceId[slot] = traceId;
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
    this.idCount[slot] = 0;
    this.hasTokens[slot] = 0;
    this.slots.set(traceId, slot);
    this.ring.push(slot, this.gen[slot]!);
    return slot;
  }

  /** A slot never used before; the numeric columns doubled when full (up to maxTraces). */
  private grow(): number {
    if (this.used === this.capacity) {
      const cap = Math.min(Math.max(FIRST_CAPACITY, this.capacity * 2), this.opts.maxTraces);
      const f64 = (a: Float64Array) => {
        const b = new Float64Array(cap);
        b.set(a);
        return b;
      };
      const i32 = (a: Int32Array, per = 1) => {
        const b = new Int32Array(cap * per);
        b.set(a);
        return b;
      };
      this.firstMs = f64(this.firstMs);
      this.lastMs = f64(this.lastMs);
      this.touchedMs = f64(this.touchedMs);
      this.queuedMs = f64(this.queuedMs);
      this.tokens = f64(this.tokens);
      this.steps = i32(this.steps);
      this.callCount = i32(this.callCount);
      this.failed = i32(this.failed);
      this.stepModelN = i32(this.stepModelN);
      this.callModelN = i32(this.callModelN);
      this.idCount = i32(this.idCount);
      this.gen = i32(this.gen);
      this.ids = i32(this.ids, IDS_PER_SLOT * 3);
      const cost = new Float64Array(cap * IDS_PER_SLOT * 3);
      cost.set(this.stepCost);
      this.stepCost = cost;
      const u8 = new Uint8Array(cap);
      u8.set(this.hasTokens);
      this.hasTokens = u8;
      this.capacity = cap;
    }
    return this.used++;
  }
}
