/** AlertStore on PostgreSQL, over the PostgresStore's pool (its public `pool`). */
import type pg from 'pg';
import { withTransaction } from '../store/pg-transaction.js';
import type { AlertStore, EvaluationCommit, OutboxRow } from './alert-store.js';
import { fromOutboxRow, type OutboxDbRow } from './alert-store-sqlite.js';
import type { AlertInstance } from './engine.js';

export class PostgresAlertStore implements AlertStore {
  constructor(private readonly pool: pg.Pool) {}

  async states(): Promise<AlertInstance[]> {
    const res = await this.pool.query<{ instance: string }>('SELECT instance FROM alert_states ORDER BY rule COLLATE "C", group_key COLLATE "C"');
    return res.rows.map((r) => JSON.parse(r.instance) as AlertInstance);
  }

  async commit(c: EvaluationCommit): Promise<void> {
    await this.tx(async (q) => {
      for (const s of c.upsert) {
        await q.query(
          `INSERT INTO alert_states (rule, group_key, state, updated_ms, instance) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (rule, group_key) DO UPDATE SET state = excluded.state, updated_ms = excluded.updated_ms, instance = excluded.instance`,
          [s.rule, s.groupKey, s.state, c.nowMs, JSON.stringify(s)],
        );
      }
      for (const r of c.remove) await q.query('DELETE FROM alert_states WHERE rule = $1 AND group_key = $2', [r.rule, r.groupKey]);
      for (const m of c.enqueue) {
        await q.query(`INSERT INTO alert_outbox (notifier, created_ms, message, status, attempts, next_attempt_ms) VALUES ($1, $2, $3, 'pending', 0, $2)`, [
          m.notifier,
          c.nowMs,
          JSON.stringify(m.message),
        ]);
      }
    });
  }

  async head(notifier: string): Promise<OutboxRow | undefined> {
    const res = await this.pool.query<OutboxDbRow>(`SELECT * FROM alert_outbox WHERE notifier = $1 AND status = 'pending' ORDER BY id LIMIT 1`, [notifier]);
    return res.rows[0] ? fromOutboxRow(res.rows[0]) : undefined;
  }

  async notifierReadyAt(notifier: string): Promise<number> {
    const res = await this.pool.query<{ ready_at_ms: string }>('SELECT ready_at_ms FROM alert_notifiers WHERE notifier = $1', [notifier]);
    return res.rows[0] ? Number(res.rows[0].ready_at_ms) : 0;
  }

  async markAttempt(id: number, notifier: string, nowMs: number, retryAtMs: number, readyAtMs: number): Promise<void> {
    await this.tx(async (q) => {
      await q.query('UPDATE alert_outbox SET attempts = attempts + 1, last_attempt_ms = $1, next_attempt_ms = $2 WHERE id = $3', [nowMs, retryAtMs, id]);
      await q.query(
        'INSERT INTO alert_notifiers (notifier, ready_at_ms) VALUES ($1, $2) ON CONFLICT (notifier) DO UPDATE SET ready_at_ms = excluded.ready_at_ms',
        [notifier, readyAtMs],
      );
    });
  }

  async markSent(id: number, nowMs: number): Promise<void> {
    await this.pool.query(`UPDATE alert_outbox SET status = 'sent', done_ms = $1, last_error = NULL WHERE id = $2`, [nowMs, id]);
  }

  async markRetry(id: number, notifier: string, error: string, retryAtMs: number): Promise<void> {
    await this.tx(async (q) => {
      await q.query('UPDATE alert_outbox SET next_attempt_ms = $1, last_error = $2 WHERE id = $3', [retryAtMs, error, id]);
      await q.query(
        `INSERT INTO alert_notifiers (notifier, ready_at_ms) VALUES ($1, $2)
         ON CONFLICT (notifier) DO UPDATE SET ready_at_ms = GREATEST(alert_notifiers.ready_at_ms, excluded.ready_at_ms)`,
        [notifier, retryAtMs],
      );
    });
  }

  async markFailed(id: number, error: string, nowMs: number): Promise<void> {
    await this.pool.query(`UPDATE alert_outbox SET status = 'failed', done_ms = $1, last_error = $2 WHERE id = $3`, [nowMs, error, id]);
  }

  async outboxSummary(failedLimit: number) {
    const counts = await this.pool.query<{ status: string; n: string }>('SELECT status, COUNT(*) AS n FROM alert_outbox GROUP BY status');
    const by = Object.fromEntries(counts.rows.map((c) => [c.status, Number(c.n)]));
    const failed = await this.pool.query<OutboxDbRow>(`SELECT * FROM alert_outbox WHERE status = 'failed' ORDER BY id DESC LIMIT $1`, [failedLimit]);
    return { pending: by.pending ?? 0, sent: by.sent ?? 0, failed: by.failed ?? 0, recentFailures: failed.rows.map(fromOutboxRow) };
  }

  async prune(beforeMs: number): Promise<number> {
    return this.tx(async (q) => {
      let removed = (await q.query(`DELETE FROM alert_outbox WHERE status <> 'pending' AND done_ms < $1`, [beforeMs])).rowCount ?? 0;
      removed += (await q.query(`DELETE FROM alert_states WHERE state = 'resolved' AND updated_ms < $1`, [beforeMs])).rowCount ?? 0;
      return removed;
    });
  }

  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return withTransaction(await this.pool.connect(), fn);
  }

}
