/** AlertStore on the embedded SQLite database (the SqliteStore's connection, same file). */
import type Database from 'better-sqlite3';
import type { AlertStore, EvaluationCommit, OutboxRow } from './alert-store.js';
import type { AlertInstance } from './engine.js';

export interface OutboxDbRow {
  id: number | string;
  notifier: string;
  created_ms: number | string;
  message: string;
  status: string;
  attempts: number | string;
  next_attempt_ms: number | string;
  last_attempt_ms: number | string | null;
  done_ms: number | string | null;
  last_error: string | null;
}

/** Shared with the PostgreSQL store (BIGINT arrives as a string there). */
export function fromOutboxRow(r: OutboxDbRow): OutboxRow {
  const n = (v: number | string | null) => (v === null ? null : Number(v));
  return {
    id: Number(r.id),
    notifier: r.notifier,
    createdMs: Number(r.created_ms),
    message: JSON.parse(r.message) as OutboxRow['message'],
    status: r.status as OutboxRow['status'],
    attempts: Number(r.attempts),
    nextAttemptMs: Number(r.next_attempt_ms),
    lastAttemptMs: n(r.last_attempt_ms),
    doneMs: n(r.done_ms),
    lastError: r.last_error,
  };
}

export class SqliteAlertStore implements AlertStore {
  constructor(private readonly db: Database.Database) {}

  async states(): Promise<AlertInstance[]> {
    const rows = this.db.prepare('SELECT instance FROM alert_states ORDER BY rule, group_key').all() as { instance: string }[];
    return rows.map((r) => JSON.parse(r.instance) as AlertInstance);
  }

  async commit(c: EvaluationCommit): Promise<void> {
    const upsert = this.db.prepare(
      `INSERT INTO alert_states (rule, group_key, state, updated_ms, instance) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (rule, group_key) DO UPDATE SET state = excluded.state, updated_ms = excluded.updated_ms, instance = excluded.instance`,
    );
    const remove = this.db.prepare('DELETE FROM alert_states WHERE rule = ? AND group_key = ?');
    const enqueue = this.db.prepare(
      `INSERT INTO alert_outbox (notifier, created_ms, message, status, attempts, next_attempt_ms) VALUES (?, ?, ?, 'pending', 0, ?)`,
    );
    this.db.transaction(() => {
      for (const s of c.upsert) upsert.run(s.rule, s.groupKey, s.state, c.nowMs, JSON.stringify(s));
      for (const r of c.remove) remove.run(r.rule, r.groupKey);
      for (const m of c.enqueue) enqueue.run(m.notifier, c.nowMs, JSON.stringify(m.message), c.nowMs);
    })();
  }

  async head(notifier: string): Promise<OutboxRow | undefined> {
    const r = this.db.prepare(`SELECT * FROM alert_outbox WHERE notifier = ? AND status = 'pending' ORDER BY id LIMIT 1`).get(notifier) as OutboxDbRow | undefined;
    return r ? fromOutboxRow(r) : undefined;
  }

  async notifierReadyAt(notifier: string): Promise<number> {
    const r = this.db.prepare('SELECT ready_at_ms FROM alert_notifiers WHERE notifier = ?').get(notifier) as { ready_at_ms: number } | undefined;
    return r ? Number(r.ready_at_ms) : 0;
  }

  async markAttempt(id: number, notifier: string, nowMs: number, retryAtMs: number, readyAtMs: number): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare('UPDATE alert_outbox SET attempts = attempts + 1, last_attempt_ms = ?, next_attempt_ms = ? WHERE id = ?').run(nowMs, retryAtMs, id);
      this.setReady(notifier, readyAtMs);
    })();
  }

  async markSent(id: number, nowMs: number): Promise<void> {
    this.db.prepare(`UPDATE alert_outbox SET status = 'sent', done_ms = ?, last_error = NULL WHERE id = ?`).run(nowMs, id);
  }

  async markRetry(id: number, notifier: string, error: string, retryAtMs: number): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare('UPDATE alert_outbox SET next_attempt_ms = ?, last_error = ? WHERE id = ?').run(retryAtMs, error, id);
      // Retry-After and backoff hold the whole webhook, not just this message.
      this.db
        .prepare('INSERT INTO alert_notifiers (notifier, ready_at_ms) VALUES (?, ?) ON CONFLICT (notifier) DO UPDATE SET ready_at_ms = MAX(ready_at_ms, excluded.ready_at_ms)')
        .run(notifier, retryAtMs);
    })();
  }

  async markFailed(id: number, error: string, nowMs: number): Promise<void> {
    this.db.prepare(`UPDATE alert_outbox SET status = 'failed', done_ms = ?, last_error = ? WHERE id = ?`).run(nowMs, error, id);
  }

  async outboxSummary(failedLimit: number) {
    const counts = this.db.prepare('SELECT status, COUNT(*) AS n FROM alert_outbox GROUP BY status').all() as { status: string; n: number }[];
    const by = Object.fromEntries(counts.map((c) => [c.status, Number(c.n)]));
    const failed = this.db.prepare(`SELECT * FROM alert_outbox WHERE status = 'failed' ORDER BY id DESC LIMIT ?`).all(failedLimit) as OutboxDbRow[];
    return { pending: by.pending ?? 0, sent: by.sent ?? 0, failed: by.failed ?? 0, recentFailures: failed.map(fromOutboxRow) };
  }

  async prune(beforeMs: number): Promise<number> {
    let removed = 0;
    this.db.transaction(() => {
      removed += this.db.prepare(`DELETE FROM alert_outbox WHERE status <> 'pending' AND done_ms < ?`).run(beforeMs).changes;
      removed += this.db.prepare(`DELETE FROM alert_states WHERE state = 'resolved' AND updated_ms < ?`).run(beforeMs).changes;
    })();
    return removed;
  }

  private setReady(notifier: string, readyAtMs: number): void {
    this.db
      .prepare('INSERT INTO alert_notifiers (notifier, ready_at_ms) VALUES (?, ?) ON CONFLICT (notifier) DO UPDATE SET ready_at_ms = excluded.ready_at_ms')
      .run(notifier, readyAtMs);
  }
}
