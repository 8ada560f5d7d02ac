/** The Langfuse source state on PostgreSQL (see langfuse-state.ts for what each method promises). */
import type pg from 'pg';
import { withTransaction } from '../../store/pg-transaction.js';
import type { BatchExtension } from '../../store/store.js';
import { fromStateRow, SOURCE_KEY, type ApiMode, type LangfuseStateStore, type OutboxRow, type SeenId, type SourceState } from './state.js';

export class PgLangfuseState implements LangfuseStateStore {
  private constructor(private readonly pool: pg.Pool) {}

  static async open(pool: pg.Pool): Promise<PgLangfuseState> {
    await pool.query(
      `INSERT INTO langfuse_state (source, mode, observations, calls, windows, updated_ms) VALUES ($1, 'v2', 0, 0, 0, $2) ON CONFLICT (source) DO NOTHING`,
      [SOURCE_KEY, Date.now()],
    );
    return new PgLangfuseState(pool);
  }

  async load(): Promise<SourceState> {
    const res = await this.pool.query('SELECT * FROM langfuse_state WHERE source = $1', [SOURCE_KEY]);
    return fromStateRow(res.rows[0]);
  }

  async completeWindow(w: { watermarkMs: number; mode: ApiMode; nowMs: number; keepSinceMs: number }): Promise<void> {
    await withTransaction(await this.pool.connect(), async (c) => {
      await c.query('UPDATE langfuse_state SET watermark_ms = $1, mode = $2, last_success_ms = $3, windows = windows + 1, updated_ms = $3 WHERE source = $4', [
        w.watermarkMs,
        w.mode,
        w.nowMs,
        SOURCE_KEY,
      ]);
      await c.query('DELETE FROM langfuse_seen WHERE start_ms < $1', [w.keepSinceMs]);
    });
  }

  async recordError(message: string, mode: ApiMode, nowMs: number): Promise<void> {
    await this.pool.query('UPDATE langfuse_state SET last_error = $1, last_error_ms = $2, mode = $3, updated_ms = $2 WHERE source = $4', [message, nowMs, mode, SOURCE_KEY]);
  }

  async seenSince(sinceMs: number): Promise<Map<string, number>> {
    const res = await this.pool.query<{ observation_id: string; start_ms: string }>('SELECT observation_id, start_ms FROM langfuse_seen WHERE start_ms >= $1', [sinceMs]);
    return new Map(res.rows.map((r) => [r.observation_id, Number(r.start_ms)]));
  }

  batchExtension(seen: readonly SeenId[], calls: number, scores: readonly OutboxRow[]): BatchExtension {
    const now = Date.now();
    return {
      sqlite: () => {
        throw new Error('langfuse: PostgreSQL state used with a SQLite store');
      },
      postgres: async (c) => {
        if (seen.length > 0) {
          await c.query('INSERT INTO langfuse_seen (observation_id, start_ms) SELECT * FROM unnest($1::text[], $2::bigint[]) ON CONFLICT DO NOTHING', [
            seen.map((s) => s.id),
            seen.map((s) => s.startMs),
          ]);
        }
        await c.query('UPDATE langfuse_state SET observations = observations + $1, calls = calls + $2, updated_ms = $3 WHERE source = $4', [seen.length, calls, now, SOURCE_KEY]);
        if (scores.length > 0) await insertOutbox(c, scores, now);
      },
    };
  }

  async enqueueScores(rows: readonly OutboxRow[]): Promise<void> {
    if (rows.length > 0) await insertOutbox(this.pool, rows, Date.now());
  }

  async dueScores(nowMs: number, limit: number): Promise<OutboxRow[]> {
    const res = await this.pool.query<{ id: string; body: string; attempts: number; next_ms: string }>(
      'SELECT id, body, attempts, next_ms FROM langfuse_score_outbox WHERE next_ms <= $1 ORDER BY next_ms, id COLLATE "C" LIMIT $2',
      [nowMs, limit],
    );
    return res.rows.map((r) => ({ id: r.id, body: r.body, attempts: Number(r.attempts), nextMs: Number(r.next_ms) }));
  }

  async deleteScores(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.pool.query('DELETE FROM langfuse_score_outbox WHERE id = ANY($1::text[])', [ids]);
  }

  async rescheduleScore(id: string, attempts: number, nextMs: number): Promise<void> {
    await this.pool.query('UPDATE langfuse_score_outbox SET attempts = $1, next_ms = $2 WHERE id = $3', [attempts, nextMs, id]);
  }

  async pendingScores(): Promise<number> {
    const res = await this.pool.query<{ n: string }>('SELECT COUNT(*) AS n FROM langfuse_score_outbox');
    return Number(res.rows[0]?.n ?? 0);
  }
}

async function insertOutbox(q: pg.Pool | pg.PoolClient, rows: readonly OutboxRow[], now: number): Promise<void> {
  await q.query(
    `INSERT INTO langfuse_score_outbox (id, body, attempts, next_ms, created_ms)
     SELECT id, body, attempts, next_ms, $5 FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[]) AS r(id, body, attempts, next_ms)
     ON CONFLICT (id) DO NOTHING`,
    [rows.map((r) => r.id), rows.map((r) => r.body), rows.map((r) => r.attempts), rows.map((r) => r.nextMs), now],
  );
}
