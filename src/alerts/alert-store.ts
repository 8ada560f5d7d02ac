/**
 * Where alert states and the outbox live: a small port of its own (SQLite and PostgreSQL
 * implementations next to it), so the main Store port does not grow for alerts.
 */
import type { AlertInstance } from './engine.js';
import type { AlertMessage } from './message.js';

export type OutboxStatus = 'pending' | 'sent' | 'failed';

export interface OutboxRow {
  id: number;
  notifier: string;
  createdMs: number;
  message: AlertMessage;
  status: OutboxStatus;
  attempts: number;
  nextAttemptMs: number;
  lastAttemptMs: number | null;
  doneMs: number | null;
  lastError: string | null;
}

export interface EvaluationCommit {
  upsert: AlertInstance[];
  remove: { rule: string; groupKey: string }[];
  /** One row per notifier per message, written in the same transaction as the states. */
  enqueue: { notifier: string; message: AlertMessage }[];
  nowMs: number;
}

export interface AlertStore {
  states(): Promise<AlertInstance[]>;
  /** States and their notifications in one transaction: a transition never loses or doubles its message. */
  commit(c: EvaluationCommit): Promise<void>;
  /** The oldest pending message of a notifier (FIFO per notifier: a resolved never overtakes its firing). */
  head(notifier: string): Promise<OutboxRow | undefined>;
  /** When the notifier may send next (rate limit, Retry-After); 0 when never used. */
  notifierReadyAt(notifier: string): Promise<number>;
  /**
   * Records an attempt before it is made: attempts + 1, the retry time should the process die
   * mid-send, and the notifier's next slot. A restart then resends it — at most one duplicate.
   */
  markAttempt(id: number, notifier: string, nowMs: number, retryAtMs: number, notifierReadyAtMs: number): Promise<void>;
  markSent(id: number, nowMs: number): Promise<void>;
  markRetry(id: number, notifier: string, error: string, retryAtMs: number): Promise<void>;
  markFailed(id: number, error: string, nowMs: number): Promise<void>;
  /** Counts by status, and the most recent permanently failed messages. */
  outboxSummary(failedLimit: number): Promise<{ pending: number; sent: number; failed: number; recentFailures: OutboxRow[] }>;
  /** Deletes delivered / failed messages and resolved states older than the cutoff. */
  prune(beforeMs: number): Promise<number>;
}
