/**
 * The store port. SQLite (embedded default) and PostgreSQL (replicated) implement it; everything
 * else talks to this interface only.
 */
import type { OutcomeName, SourceName, ValidationError } from '../model.js';

export interface CallAggregate {
  /** Minute start, ms since the epoch. */
  minute: number;
  source: SourceName;
  service: string;
  model: string;
  /** The tool as counted: its name, or `_unknown` for an UnknownName call. */
  tool: string;
  outcome: OutcomeName;
  /** For unvalidated: no_arguments | no_schema | bad_schema; '' otherwise. */
  reason: string;
  count: number;
}

export interface ExecutionAggregate {
  minute: number;
  source: SourceName;
  service: string;
  tool: string;
  status: 'ok' | 'error';
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
  /** The raw arguments as sent (absent when not captured). */
  arguments?: string;
  /** Ajv errors for SchemaMismatch. */
  errors: ValidationError[];
  /** The JSON parse error, or the tools that were offered for UnknownName. */
  message: string;
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
}

/**
 * Rows a feature adds to a batch's transaction without the store knowing the feature (the judge's
 * sampled trajectories, for one). Each store calls the hook for its own kind, inside the transaction.
 */
export interface BatchExtension {
  sqlite(db: import('better-sqlite3').Database): void;
  postgres(client: import('pg').PoolClient): Promise<void>;
}

/** Everything one ingested batch writes, in one transaction. */
export interface WriteBatch {
  callAggregates: CallAggregate[];
  executionAggregates: ExecutionAggregate[];
  failures: FailureRecord[];
  failureDrops: FailureDrop[];
  pendingAdd: PendingRow[];
  pendingRemove: { traceId: string; callKey: string }[];
  extensions: BatchExtension[];
}

export interface StoredFailure extends FailureRecord {
  id: number;
}

export interface FailureQuery {
  service?: string;
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

export interface CallCountQuery {
  sinceMs: number;
  untilMs?: number;
  service?: string;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Resolves once the batch is durably committed; rejects and writes nothing when it cannot be. */
  write(batch: WriteBatch): Promise<void>;
  /** Batches accepted by write() and not yet committed. */
  pendingWrites(): number;
  failures(q: FailureQuery): Promise<StoredFailure[]>;
  callCounts(q: CallCountQuery): Promise<CallCountRow[]>;
  /** Every pending call, in due order (read once at start-up). */
  loadPending(): Promise<PendingRow[]>;
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
  return { callAggregates: [], executionAggregates: [], failures: [], failureDrops: [], pendingAdd: [], pendingRemove: [], extensions: [] };
}

export const MINUTE_MS = 60_000;
export const minuteOf = (ms: number): number => Math.floor(ms / MINUTE_MS) * MINUTE_MS;
