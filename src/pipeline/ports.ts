/**
 * The pipeline's ports: what a source hands it (SpanConsumer: the one thing the OTLP and Langfuse
 * sources depend on, not the Pipeline class), who sent a batch, the stages that add rows to a
 * batch's transaction or read it after commit, what a Pipeline is built from (PipelineDeps), and
 * the two ways a batch fails before the store (BatchCancelled, BatchUnprocessable).
 */
import type { CheckLimits } from '../check/budget.js';
import type { ToolRegistry } from '../check/registry.js';
import type { SchemaCache } from '../check/schema-cache.js';
import type { CompletedTrajectory, TrajectoryTracker } from '../efficiency/tracker.js';
import type { ToolErrorRule } from '../normalize/tool-error.js';
import type { CoverageTracker } from '../instrumentation/coverage.js';
import type { LabelCap } from '../metrics/label-cap.js';
import type { Metrics } from '../metrics/registry.js';
import type { CheckedCall, LogEvent, ReleasedExecution, SourceName, Span as OtlpSpan, SpanFacts } from '../model.js';
import type { Dialects } from '../normalize/dialect.js';
import type { StoreRedactor } from '../redact/stored.js';
import type { BatchExtension, PendingKey, Store, WriteBatch } from '../store/store.js';
import type { WriteHealth } from '../store/write-health.js';
import type { Span, Tracer } from '../telemetry/tracing.js';
import type { CallLabels } from './call-labels.js';
import type { Ledger } from './ledger.js';

/**
 * What a source hands its spans to: OTLP span batches and log events (the receiver), read facts
 * (Langfuse). Each call is one batch, one durable write, with the guarantees pipeline.ts describes.
 */
export interface SpanConsumer {
  /**
   * `cancelled` is asked once nothing is recorded yet: true skips the batch (BatchCancelled).
   * `sender`: the services its sender may write and its ingest token's name.
   */
  ingestSpans(
    spans: readonly OtlpSpan[],
    source?: SourceName,
    cancelled?: () => boolean,
    sender?: BatchSender,
  ): Promise<IngestSummary>;
  /** GenAI events that came as OTLP log records, read as the span events they stand for. */
  ingestLogEvents(events: readonly LogEvent[], cancelled?: () => boolean, sender?: BatchSender): Promise<IngestSummary>;
  /** Facts a source read itself; `extend` adds rows to the batch's own transaction, `parent` is the caller's span. */
  ingestFacts(
    facts: readonly SpanFacts[],
    source: SourceName,
    spanCount?: number,
    extend?: (calls: readonly CheckedCall[]) => readonly BatchExtension[],
    parent?: Span,
  ): Promise<IngestSummary>;
}

/**
 * Which services the sender of a batch may write (its token's `services`; `globs` undefined: every
 * service). Its spans are all of those (the receiver rejected the rest), but a span may name another
 * team's trace: what a batch adds to a trace's stored data or feedback is checked against it.
 */
export interface BatchWriter {
  readonly globs: readonly string[] | undefined;
  sees(service: string): boolean;
}

/** Who sent a batch: the services its token may write, and the token's name. */
export interface BatchSender {
  writer?: BatchWriter | undefined;
  token?: string | undefined;
}

/** A stage that returns rows for a batch's transaction (the judge's trajectory sampler, for one). */
export interface BatchSink {
  collect(input: {
    source: SourceName;
    facts: readonly SpanFacts[];
    calls: readonly CheckedCall[];
    /** Undefined: a trusted source (Langfuse, an unrestricted token). */
    writer?: BatchWriter | undefined;
  }): readonly BatchExtension[];
}

/**
 * Reads raw spans for what no dialect reads (user feedback attributes), in two halves: `read` takes
 * each span while its batch is read (a key lookup or two: what it found is kept, not the span), and
 * `record` what was found once the batch committed (undefined: nothing to do). A record that fails
 * fails the request; the client's retry counts no call twice (the ledger remembers the batch's spans).
 */
export interface SpanTap<T = unknown> {
  read(span: OtlpSpan, found: T | undefined): T | undefined;
  record(found: T | undefined, source: SourceName, writer?: BatchWriter): Promise<void> | undefined;
}

/**
 * Rows for the calls this write counts — from a batch or from settled pending calls alike — with the
 * label values they are counted under (the problem store: src/problems/record.ts).
 */
export interface CountedCallSink {
  extension(
    calls: readonly CheckedCall[],
    labels: readonly CallLabels[],
    facts: readonly SpanFacts[],
  ): BatchExtension | undefined;
  /** Rows for the executions a settle round counts (labels already capped), in the same write. */
  executions?(released: readonly ReleasedExecution[]): BatchExtension | undefined;
  /** Rows for trajectories completed now (their repair turns), in the same write as their statistics. */
  trajectories?(done: readonly CompletedTrajectory[]): BatchExtension | undefined;
}

/** A failure-context extension's rows, and how many values the stored redactor refused (not stored). */
export interface FailureContextRows {
  extension: BatchExtension;
  redactionFailures: number;
}

/** Persisted pending calls read back at start: how many were put back, and the rows that could not be read. */
export interface RestoreResult {
  restored: number;
  unreadable: { traceId: string; callKey: string; reason: string }[];
  /** Rows of calls this process already counted from their proposal: to be deleted, not counted. */
  superseded: PendingKey[];
}

export interface PipelineDeps {
  /** The dialect readers of this service instance. */
  dialects: Dialects;
  registry: ToolRegistry;
  schemas: SchemaCache;
  /** What checking may cost per call, per batch and per ingest token (check.*); default: the config defaults. */
  check?: CheckLimits;
  ledger: Ledger;
  store: Store;
  metrics: Metrics;
  labels: LabelCap;
  failuresPerToolPerMinute: number;
  /** Masks what failure records store (store.redact_arguments). */
  redactor: StoreRedactor;
  /** How long a call known only from its tool span waits for its proposal before it is counted. */
  executionGraceMs: number;
  /** The id this process holds its waiting calls under (pending-owner.ts); default 'local'. */
  owner?: string;
  /** How long an execution waits for child spans that come after its tool span (executions.ts); default 0. */
  statusGraceMs?: number;
  /** Follows every trace to its end for the trajectory statistics (src/efficiency/); none = off. */
  trajectories?: TrajectoryTracker;
  /** Wall-clock time: what is stored (counts' minutes, failure records, the journal's record times). */
  now: () => number;
  /**
   * The clock of durations, TTLs and grace periods (the dedupe memory's trace_ttl, execution_grace,
   * status_grace, the trajectories' idle time): util/steady-clock.ts, so a wall-clock jump moves none
   * of them. Default: `now`.
   */
  steady?: () => number;
  sinks?: BatchSink[];
  /** Written with every counted call and failed execution, and every completed trajectory (problems/); none = off. */
  counted?: CountedCallSink;
  /** Which tool results report a failure inside a success (`tool_error`); default: DEFAULT_TOOL_ERROR_RULES. */
  toolErrorRules?: readonly ToolErrorRule[];
  /**
   * The instrumentation-coverage report of this process: every span received through ingestSpans
   * and every call counted from a span are added once their batch committed.
   */
  coverage?: CoverageTracker;
  /** toolwatch's own tracing; undefined when off (then no span and no attribute is built). */
  tracer?: Tracer;
  /** Told every write's outcome (readiness). */
  writeHealth?: WriteHealth;
  /** Read each OTLP batch's raw spans after it committed (user feedback attributes). */
  taps?: SpanTap[];
  /**
   * Rows kept with the batch's stored failure records (the request context an export needs), in the
   * batch's own transaction; `redactionFailures` counts the values the stored redactor refused.
   */
  failureContext?: (failures: WriteBatch['failures'], facts: readonly SpanFacts[]) => FailureContextRows | undefined;
}

export interface IngestSummary {
  spans: number;
  calls: number;
  failures: number;
  executions: number;
  /** Tool-span-only calls held for their grace period. */
  deferred: number;
  duplicateSpans: number;
}

/** The batch was skipped before anything was recorded: its client had gone. */
export class BatchCancelled extends Error {
  constructor() {
    super('the client went away before the batch was recorded');
    this.name = 'BatchCancelled';
  }
}

/**
 * The batch failed before it reached the store, in toolwatch's own processing: the same batch would
 * fail the same way on every resend, so it must not be answered as retryable (503), and the store's
 * health is not in question.
 */
export class BatchUnprocessable extends Error {
  constructor(cause: unknown) {
    super(`the batch could not be processed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'BatchUnprocessable';
  }
}

/** Runs `read`, turning what it throws into BatchUnprocessable (a resend would throw it again). */
export function unprocessableOnThrow<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new BatchUnprocessable(err);
  }
}
