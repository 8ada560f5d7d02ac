/**
 * Where the Langfuse source keeps what must survive a restart: the watermark (only moved after a
 * window is fully processed), the API mode, the last error and counts; the observation ids of the
 * overlap; the score outbox. SQLite here, PostgreSQL in langfuse-state-pg.ts, same port.
 */
import type Database from 'better-sqlite3';
import type { BatchExtension, Store } from '../../store/store.js';
import { SqliteStore } from '../../store/sqlite.js';

export type ApiMode = 'v2' | 'v1';

export interface SourceState {
  /** Everything that started before this is processed; null before the first window. */
  watermarkMs: number | null;
  mode: ApiMode;
  lastError: string | null;
  lastErrorMs: number | null;
  lastSuccessMs: number | null;
  /** New observations ingested and calls counted from them (committed with their batch). */
  observations: number;
  calls: number;
  windows: number;
}

export interface OutboxRow {
  id: string;
  /** The score's JSON body. */
  body: string;
  attempts: number;
  nextMs: number;
}

export interface SeenId {
  id: string;
  startMs: number;
}

export interface LangfuseStateStore {
  load(): Promise<SourceState>;
  /** The window up to watermarkMs is done: advance it and forget seen ids that started before keepSinceMs. */
  completeWindow(w: { watermarkMs: number; mode: ApiMode; nowMs: number; keepSinceMs: number }): Promise<void>;
  recordError(message: string, mode: ApiMode, nowMs: number): Promise<void>;
  /** Seen ids of observations that started at or after sinceMs (loaded when a process starts its first window). */
  seenSince(sinceMs: number): Promise<Map<string, number>>;
  /** Rows written inside the pipeline batch's own transaction: counted and remembered atomically. */
  batchExtension(seen: readonly SeenId[], calls: number, scores: readonly OutboxRow[]): BatchExtension;
  enqueueScores(rows: readonly OutboxRow[]): Promise<void>;
  dueScores(nowMs: number, limit: number): Promise<OutboxRow[]>;
  deleteScores(ids: readonly string[]): Promise<void>;
  rescheduleScore(id: string, attempts: number, nextMs: number): Promise<void>;
  pendingScores(): Promise<number>;
}

export const SOURCE_KEY = 'langfuse';

interface StateRow {
  watermark_ms: number | string | null;
  mode: string;
  last_error: string | null;
  last_error_ms: number | string | null;
  last_success_ms: number | string | null;
  observations: number | string;
  calls: number | string;
  windows: number | string;
}

const numOrNull = (v: number | string | null): number | null => (v === null ? null : Number(v));

export function fromStateRow(r: StateRow | undefined): SourceState {
  if (!r) return { watermarkMs: null, mode: 'v2', lastError: null, lastErrorMs: null, lastSuccessMs: null, observations: 0, calls: 0, windows: 0 };
  return {
    watermarkMs: numOrNull(r.watermark_ms),
    mode: r.mode === 'v1' ? 'v1' : 'v2',
    lastError: r.last_error,
    lastErrorMs: numOrNull(r.last_error_ms),
    lastSuccessMs: numOrNull(r.last_success_ms),
    observations: Number(r.observations),
    calls: Number(r.calls),
    windows: Number(r.windows),
  };
}

export class SqliteLangfuseState implements LangfuseStateStore {
  constructor(private readonly db: Database.Database) {
    db.prepare(`INSERT OR IGNORE INTO langfuse_state (source, mode, observations, calls, windows, updated_ms) VALUES (?, 'v2', 0, 0, 0, ?)`).run(SOURCE_KEY, Date.now());
  }

  async load(): Promise<SourceState> {
    return fromStateRow(this.db.prepare('SELECT * FROM langfuse_state WHERE source = ?').get(SOURCE_KEY) as StateRow | undefined);
  }

  async completeWindow(w: { watermarkMs: number; mode: ApiMode; nowMs: number; keepSinceMs: number }): Promise<void> {
    this.db.transaction(() => {
      this.db
        .prepare('UPDATE langfuse_state SET watermark_ms = ?, mode = ?, last_success_ms = ?, windows = windows + 1, updated_ms = ? WHERE source = ?')
        .run(w.watermarkMs, w.mode, w.nowMs, w.nowMs, SOURCE_KEY);
      this.db.prepare('DELETE FROM langfuse_seen WHERE start_ms < ?').run(w.keepSinceMs);
    })();
  }

  async recordError(message: string, mode: ApiMode, nowMs: number): Promise<void> {
    this.db.prepare('UPDATE langfuse_state SET last_error = ?, last_error_ms = ?, mode = ?, updated_ms = ? WHERE source = ?').run(message, nowMs, mode, nowMs, SOURCE_KEY);
  }

  async seenSince(sinceMs: number): Promise<Map<string, number>> {
    const rows = this.db.prepare('SELECT observation_id, start_ms FROM langfuse_seen WHERE start_ms >= ?').all(sinceMs) as { observation_id: string; start_ms: number }[];
    return new Map(rows.map((r) => [r.observation_id, Number(r.start_ms)]));
  }

  batchExtension(seen: readonly SeenId[], calls: number, scores: readonly OutboxRow[]): BatchExtension {
    const now = Date.now();
    return {
      sqlite: (db) => {
        const ins = db.prepare('INSERT OR IGNORE INTO langfuse_seen (observation_id, start_ms) VALUES (?, ?)');
        for (const s of seen) ins.run(s.id, s.startMs);
        db.prepare('UPDATE langfuse_state SET observations = observations + ?, calls = calls + ?, updated_ms = ? WHERE source = ?').run(seen.length, calls, now, SOURCE_KEY);
        const out = db.prepare('INSERT OR IGNORE INTO langfuse_score_outbox (id, body, attempts, next_ms, created_ms) VALUES (?, ?, ?, ?, ?)');
        for (const r of scores) out.run(r.id, r.body, r.attempts, r.nextMs, now);
      },
      postgres: () => Promise.reject(new Error('langfuse: SQLite state used with a PostgreSQL store')),
    };
  }

  async enqueueScores(rows: readonly OutboxRow[]): Promise<void> {
    const now = Date.now();
    const out = this.db.prepare('INSERT OR IGNORE INTO langfuse_score_outbox (id, body, attempts, next_ms, created_ms) VALUES (?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const r of rows) out.run(r.id, r.body, r.attempts, r.nextMs, now);
    })();
  }

  async dueScores(nowMs: number, limit: number): Promise<OutboxRow[]> {
    const rows = this.db.prepare('SELECT id, body, attempts, next_ms FROM langfuse_score_outbox WHERE next_ms <= ? ORDER BY next_ms, id LIMIT ?').all(nowMs, limit) as {
      id: string;
      body: string;
      attempts: number;
      next_ms: number;
    }[];
    return rows.map((r) => ({ id: r.id, body: r.body, attempts: Number(r.attempts), nextMs: Number(r.next_ms) }));
  }

  async deleteScores(ids: readonly string[]): Promise<void> {
    const del = this.db.prepare('DELETE FROM langfuse_score_outbox WHERE id = ?');
    this.db.transaction(() => {
      for (const id of ids) del.run(id);
    })();
  }

  async rescheduleScore(id: string, attempts: number, nextMs: number): Promise<void> {
    this.db.prepare('UPDATE langfuse_score_outbox SET attempts = ?, next_ms = ? WHERE id = ?').run(attempts, nextMs, id);
  }

  async pendingScores(): Promise<number> {
    return Number((this.db.prepare('SELECT COUNT(*) AS n FROM langfuse_score_outbox').get() as { n: number }).n);
  }
}

/** The state store for whichever store toolwatch runs on. */
export async function openLangfuseState(store: Store): Promise<LangfuseStateStore> {
  if (store instanceof SqliteStore) return new SqliteLangfuseState(store.db);
  if (store.kind === 'postgres') {
    const { PgLangfuseState } = await import('./state-pg.js');
    return PgLangfuseState.open((store as unknown as { pool: import('pg').Pool }).pool);
  }
  throw new Error(`langfuse: no state store for a ${String(store.kind)} store`);
}
