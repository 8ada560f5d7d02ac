/**
 * The store port. SQLite (embedded default) and PostgreSQL (replicated) implement it; everything
 * else talks to this interface only.
 */
import type {
  CallOutcomeLabel,
  ExecutionStatus,
  InvalidJsonCause,
  OutcomeName,
  SourceName,
  ValidationError,
} from '../model.js';
import type { BatchExtension, Sql } from './sql.js';

export type { BatchExtension, BatchTx, Sql } from './sql.js';

export interface CallAggregate {
  /** Minute start, ms since the epoch. */
  minute: number;
  source: SourceName;
  service: string;
  model: string;
  /** The tool as counted: its name, or `_unknown` for an UnknownName call. */
  tool: string;
  outcome: OutcomeName;
  /** For unvalidated: no_arguments | no_schema | bad_schema | no_name; '' otherwise. */
  reason: string;
  count: number;
}

export interface ExecutionAggregate {
  minute: number;
  source: SourceName;
  service: string;
  /** The model of the execution's call ('' when the call came from a tool span alone). */
  model: string;
  tool: string;
  status: ExecutionStatus;
  callOutcome: CallOutcomeLabel;
  count: number;
}

export interface FailureRecord {
  timeMs: number;
  source: SourceName;
  service: string;
  model: string;
  /** As in the aggregates (`_unknown` for invented names). */
  tool: string;
  /** The name exactly as the model wrote it. */
  name: string;
  outcome: Exclude<OutcomeName, 'valid' | 'unvalidated'>;
  traceId: string;
  spanId: string;
  callId?: string;
  /** The arguments as sent, masked per store.redact_arguments (absent when not captured). */
  arguments?: string;
  /** Why the arguments were not stored: the redactor could not handle them (fail closed). */
  argumentsOmitted?: string;
  /** Ajv errors for SchemaMismatch. */
  errors: ValidationError[];
  /** The JSON parse error, or the tools that were offered for UnknownName. */
  message: string;
  /** An InvalidJson call's cause (src/check/invalid-json-cause.ts); absent for other outcomes and older rows. */
  reason?: InvalidJsonCause;
}

export interface FailureDrop {
  minute: number;
  service: string;
  tool: string;
  dropped: number;
}

/** A tool-span-only call waiting out its grace period (see pipeline/ledger.ts), persisted so a restart keeps it. */
export interface PendingRow {
  traceId: string;
  callKey: string;
  dueMs: number;
  /** The call to count, as JSON. */
  payload: string;
  /** The process holding it (pipeline/pending-owner.ts); null: nobody yet (rows from before owners). */
  owner?: string | null;
}

export interface PendingKey {
  traceId: string;
  callKey: string;
}

/** What one batch took for one-call-one-count, kept so the next process knows it (pipeline/ledger-journal.ts). */
export interface LedgerRecord {
  timeMs: number;
  /** Traces in the record (the journal keeps about dedupe.max_traces of them). */
  traces: number;
  body: string;
}

/** Everything one ingested batch writes, in one transaction. */
export interface WriteBatch {
  callAggregates: CallAggregate[];
  executionAggregates: ExecutionAggregate[];
  failures: FailureRecord[];
  failureDrops: FailureDrop[];
  pendingAdd: PendingRow[];
  pendingRemove: PendingKey[];
  /** Rows features add in the same transaction (the judge's trajectories, the Langfuse ids taken). */
  extensions: BatchExtension[];
  /** The batch's record in the dedupe journal, when it took any span or call. */
  ledger?: LedgerRecord;
}

export interface StoredFailure extends FailureRecord {
  id: number;
}

export interface FailureQuery {
  service?: string;
  /** Only services matching one of these globs (a reader's view, src/util/service-view.ts); absent = every service. */
  services?: readonly string[];
  /** Matches the counted tool or the raw name. */
  tool?: string;
  outcome?: string;
  sinceMs?: number;
  limit: number;
  /** Opaque: the id of the last item of the previous page. */
  cursor?: number;
}

export interface CallCountRow {
  service: string;
  model: string;
  tool: string;
  outcome: OutcomeName;
  count: number;
}

/** The dimensions a call series may be grouped by (always by outcome too). */
export type SeriesDimension = 'service' | 'model' | 'tool';

export interface CallSeriesQuery {
  sinceMs: number;
  untilMs: number;
  /** Bucket width: a whole number of minutes. */
  stepMs: number;
  /** Where bucket 0 starts (≤ sinceMs; e.g. sinceMs rounded down to the hour); minutes before sinceMs are not read. */
  originMs: number;
  service?: string;
  /** Only services matching one of these globs (a reader's view, src/util/service-view.ts). */
  services?: readonly string[];
  by: readonly SeriesDimension[];
}

export interface CallSeriesRow {
  /** Bucket start, ms since the epoch. */
  bucket: number;
  service?: string;
  model?: string;
  tool?: string;
  outcome: OutcomeName;
  count: number;
  /** The first minute of the bucket with calls of this group. */
  firstMinute: number;
}

/** Executions summed over a window: the aggregate rows without their minute and source. */
export type ExecutionCountRow = Omit<ExecutionAggregate, 'minute' | 'source'>;

export interface CallCountQuery {
  sinceMs: number;
  untilMs?: number;
  service?: string;
  /** As in FailureQuery. */
  services?: readonly string[];
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** The SQL port every feature's state (alerts, judge, Langfuse, the delivery outbox) is written over. */
  readonly sql: Sql;
  /** Resolves once the batch is durably committed; rejects and writes nothing when it cannot be. */
  write(batch: WriteBatch): Promise<void>;
  /** Batches accepted by write() and not yet committed. */
  pendingWrites(): number;
  failures(q: FailureQuery): Promise<StoredFailure[]>;
  callCounts(q: CallCountQuery): Promise<CallCountRow[]>;
  /** Executions per service, model, tool, status and call outcome over a window (src/store/execution-counts.ts). */
  executionCounts(q: CallCountQuery): Promise<ExecutionCountRow[]>;
  /** The minute aggregates per time bucket, grouped by the given dimensions and outcome (src/store/call-series.ts). */
  callSeries(q: CallSeriesQuery): Promise<CallSeriesRow[]>;
  /** Every pending call, in due order, whoever holds it (processes take theirs through pipeline/pending-owner.ts). */
  loadPending(): Promise<PendingRow[]>;
  /**
   * Counts waiting calls that `owner` still holds: in one transaction deletes the rows of `keys` held by
   * `owner`, and writes build(the keys deleted). Resolves to those keys; a row another process took
   * over, or that is gone (its proposal arrived), is not counted here.
   */
  settlePending(
    owner: string,
    keys: readonly PendingKey[],
    build: (held: readonly PendingKey[]) => WriteBatch,
  ): Promise<PendingKey[]>;
  /** Drops aggregates and failure records older than the cutoff; returns rows removed. */
  prune(beforeMs: number): Promise<number>;
  /**
   * Runs fn only if no other holder (this process or another replica) runs the same job now:
   * the hourly judge and the alert evaluator run on one leader at a time.
   */
  runExclusive<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
  ping(): Promise<void>;
  /** Commits a write that changes nothing (readiness after failed writes: a full disk answers ping). */
  probeWrite?(): Promise<void>;
  close(): Promise<void>;
}

export function emptyBatch(): WriteBatch {
  return {
    callAggregates: [],
    executionAggregates: [],
    failures: [],
    failureDrops: [],
    pendingAdd: [],
    pendingRemove: [],
    extensions: [],
  };
}

export const MINUTE_MS = 60_000;
export const minuteOf = (ms: number): number => Math.floor(ms / MINUTE_MS) * MINUTE_MS;
