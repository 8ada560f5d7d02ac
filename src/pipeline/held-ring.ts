/**
 * The ring the execution hold (executions.ts) keeps its held executions in: columns rather than an
 * object per execution, so that at tens of thousands a second, each held for seconds, they stay out of
 * the garbage collector's work. Its own file so executions.ts reads as the hold's rules.
 */
import { OUTCOMES, type ExecutionStatus, type ReleasedExecution, type SourceName } from '../model.js';
import { worse } from '../normalize/exec-status.js';
import { hexToWords, wordsToHex } from '../util/hex-id.js';
import { type Column, sameType } from '../util/typed-arrays.js';
import type { CallEntry } from './ledger.js';
import { TextRing } from './text-ring.js';

/** An execution as it waits: labels already capped, status still open to its children. */
export interface HeldExecution {
  source: SourceName;
  traceId: string;
  spanId: string;
  service: string;
  tool: string;
  status: ExecutionStatus;
  durationMs: number;
  timeMs: number;
  /** The ledger entry of its call (its outcome and model are set once the call is counted). */
  entry?: CallEntry | undefined;
  dueMs: number;
  /** What the tool span said about a failure, and its arguments and result (a problem's signature and example). */
  httpStatus?: number | undefined;
  errorType?: string | undefined;
  args?: string | undefined;
  result?: string | undefined;
}

/** A failing child's reading, as remembered for its parent. */
export interface ChildReading {
  status: ExecutionStatus;
  httpStatus?: number | undefined;
}

const STATUS_CODES: readonly ExecutionStatus[] = ['ok', 'client_error', 'server_error', 'error', 'tool_error'];
const SOURCE_CODES: readonly SourceName[] = ['otlp', 'langfuse'];
const FIRST_CAPACITY = 1024;

/**
 * The executions in their status grace, in arrival order (which is due order: the grace is constant),
 * as a ring of columns — typed arrays for numbers, codes and the ids, the arguments as bytes
 * (text-ring.ts), plain arrays for the shared label strings, a failure's details and entries — rather
 * than an object each: at tens of thousands of executions a second, each held for seconds, that keeps
 * them out of the garbage collector's work.
 */
export class HeldRing {
  private cap = 0;
  private start = 0;
  length = 0;
  private source = new Uint8Array(0);
  private status = new Uint8Array(0);
  private durationMs = new Float64Array(0);
  private timeMs = new Float64Array(0);
  private dueMs = new Float64Array(0);
  /**
   * A trace id of 32 lower-case hex digits (every OTLP id) as four numbers (util/hex-id.ts), spelled again when
   * released (a short-lived string), so the decoded id is not kept for the status grace and
   * promoted; any other id kept as it is (traceText).
   */
  private traceWords = new Uint32Array(0);
  private traceText: (string | undefined)[] = [];
  /**
   * A span id of 16 lower-case hex digits (every OTLP id) as two numbers: the string is made again
   * only for what needs it (a failing execution, a child's lookup), so the id a batch decoded can
   * die young instead of being kept for the status grace. Any other id is kept as it is (spanText).
   */
  private spanWords = new Uint32Array(0);
  private spanText: (string | undefined)[] = [];
  private service: string[] = [];
  private tool: string[] = [];
  /**
   * Its call's outcome once counted (OUTCOMES index + 1; 0: not yet, or no call) and model: most
   * executions come with their call counted, and keep two values rather than the call's entry —
   * an object with the call's arguments that would otherwise outlive young-generation collections
   * for the whole status grace. `entry` only for a call still to be counted.
   */
  private outcome = new Uint8Array(0);
  private model: (string | undefined)[] = [];
  private entry: (CallEntry | undefined)[] = [];
  private httpStatus = new Uint16Array(0);
  private errorType: (string | undefined)[] = [];
  /** Arguments as UTF-8 bytes (text-ring.ts), in the ring's order; a string only for a failed execution. */
  private readonly args = new TextRing();
  private result: (string | undefined)[] = [];
  private readonly hexOut = Buffer.alloc(16);

  push(h: HeldExecution): void {
    if (this.length === this.cap) this.grow();
    const i = (this.start + this.length) % this.cap;
    this.source[i] = SOURCE_CODES.indexOf(h.source);
    this.status[i] = STATUS_CODES.indexOf(h.status);
    this.durationMs[i] = h.durationMs;
    this.timeMs[i] = h.timeMs;
    this.dueMs[i] = h.dueMs;
    const trace = h.traceId;
    this.traceText[i] = hexToWords(trace, 32, this.traceWords, i * 4) ? undefined : trace;
    const id = h.spanId;
    this.spanText[i] = hexToWords(id, 16, this.spanWords, i * 2) ? undefined : id;
    this.service[i] = h.service;
    this.tool[i] = h.tool;
    const e = h.entry;
    if (e !== undefined && e.outcome !== undefined) {
      this.outcome[i] = OUTCOMES.indexOf(e.outcome) + 1;
      this.model[i] = e.model;
      this.entry[i] = undefined;
    } else {
      this.outcome[i] = 0;
      this.model[i] = undefined;
      this.entry[i] = e;
    }
    this.httpStatus[i] = h.httpStatus ?? 0;
    this.errorType[i] = h.errorType;
    this.args.push(h.args);
    this.result[i] = h.result;
    this.length++;
  }

  /** The due time of the oldest; undefined when empty. */
  firstDue(): number | undefined {
    return this.length === 0 ? undefined : this.dueMs[this.start];
  }

  /** Whether the oldest waits for its call to be counted (its call known, its outcome not yet). */
  firstAwaitsCall(): boolean {
    const e = this.entry[this.start];
    return e !== undefined && e.outcome === undefined;
  }

  /** Removes the oldest and returns it counted, its status made worse by `child` (a late child's). */
  /**
   * Removes the oldest and returns it counted, its status made worse by `child` (a late child's, asked
   * only when given: the hold has children waiting).
   */
  release(child?: (traceId: string, spanId: string) => ChildReading | undefined): ReleasedExecution {
    const i = this.start;
    const entry = this.entry[i];
    const code = this.outcome[i]!;
    const traceId = this.traceIdAt(i);

    const own = STATUS_CODES[this.status[i]!]!;
    const late = child?.(traceId, this.spanIdAt(i));
    const status = late ? worse(own, late.status) : own;
    const r: ReleasedExecution = {
      source: SOURCE_CODES[this.source[i]!]!,
      traceId,
      service: this.service[i]!,
      model: (code ? this.model[i] : entry?.model) ?? '',
      tool: this.tool[i]!,
      status,
      callOutcome: (code ? OUTCOMES[code - 1] : entry?.outcome) ?? 'unknown',
      durationMs: this.durationMs[i]!,
      timeMs: this.timeMs[i]!,
      dueMs: this.dueMs[i]!,
    };
    if (status !== 'ok') {
      r.spanId = this.spanIdAt(i);
      const fromChild = status !== own && late;
      const http = fromChild ? late.httpStatus : this.httpStatus[i] || undefined;
      if (http !== undefined) r.httpStatus = http;
      const type = fromChild ? undefined : this.errorType[i];
      if (type !== undefined) r.errorType = type;
      const args = this.args.shift(true);
      if (args !== undefined) r.args = args;
      const result = this.result[i];
      if (result !== undefined) r.result = result;
    } else this.args.shift(false);
    this.clear(i);
    this.start = (this.start + 1) % this.cap;
    this.length--;
    return r;
  }

  /** The trace id of slot i, as it was held. */
  private traceIdAt(i: number): string {
    return this.traceText[i] ?? wordsToHex(this.traceWords, i * 4, 4, this.hexOut);
  }

  /** The span id of slot i, as it was held. */
  private spanIdAt(i: number): string {
    return this.spanText[i] ?? wordsToHex(this.spanWords, i * 2, 2, this.hexOut);
  }

  /** Lets go of what the slot references. */
  private clear(i: number): void {
    this.spanText[i] = undefined;
    this.traceText[i] = undefined;
    this.entry[i] = undefined;
    this.model[i] = undefined;
    this.errorType[i] = undefined;
    this.result[i] = undefined;
  }

  /**
   * Removes the oldest and returns it as an object (short-lived: moved to the waiting list): only
   * one that awaits its call (firstAwaitsCall), so its entry is at hand.
   */
  shift(): HeldExecution {
    const i = this.start;
    const h: HeldExecution = {
      source: SOURCE_CODES[this.source[i]!]!,
      traceId: this.traceIdAt(i),
      spanId: this.spanIdAt(i),
      service: this.service[i]!,
      tool: this.tool[i]!,
      status: STATUS_CODES[this.status[i]!]!,
      durationMs: this.durationMs[i]!,
      timeMs: this.timeMs[i]!,
      entry: this.entry[i],
      dueMs: this.dueMs[i]!,
      httpStatus: this.httpStatus[i] || undefined,
      errorType: this.errorType[i],
      args: this.args.shift(true),
      result: this.result[i],
    };
    this.clear(i);
    this.start = (this.start + 1) % this.cap;
    this.length--;
    return h;
  }

  private grow(): void {
    const cap = Math.max(FIRST_CAPACITY, this.cap * 2);
    const order = (n: number) => Array.from({ length: this.length }, (_, k) => (this.start + k) % n);
    const idx = this.cap ? order(this.cap) : [];
    // Each column unrolled: the ring's entries from its start to slots 0 … length-1 (`n` values a
    // slot: an id's words).
    const col = <T extends Column>(a: T, n = 1): T => {
      const b = sameType(a, cap * n);
      for (let k = 0; k < idx.length; k++) for (let j = 0; j < n; j++) b[k * n + j] = a[idx[k]! * n + j]!;
      return b;
    };
    const arr = <T>(a: T[]): T[] => idx.map((from) => a[from]!);
    this.source = col(this.source);
    this.status = col(this.status);
    this.outcome = col(this.outcome);
    this.model = arr(this.model);
    this.httpStatus = col(this.httpStatus);
    this.errorType = arr(this.errorType);
    this.result = arr(this.result);
    this.durationMs = col(this.durationMs);
    this.timeMs = col(this.timeMs);
    this.dueMs = col(this.dueMs);
    this.traceWords = col(this.traceWords, 4);
    this.traceText = arr(this.traceText);
    this.spanWords = col(this.spanWords, 2);
    this.spanText = arr(this.spanText);
    this.service = arr(this.service);
    this.tool = arr(this.tool);
    this.entry = arr(this.entry);
    this.start = 0;
    this.cap = cap;
  }
}
