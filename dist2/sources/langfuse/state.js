/**
 * Where the Langfuse source keeps what must survive a restart, over the store's SQL port: the
 * watermark (only moved after a window is fully processed), the API mode, the last error and
 * counts; the observation ids of the overlap; and, in the delivery outbox, the scores owed.
 */
import { enqueueStatements, Outbox } from '../../store/outbox.js';
import { num, numOrNull, strOrNull } from '../../store/rows.js';
import { valuesList } from '../../store/sql.js';
export const SOURCE_KEY = 'langfuse';
/** The outbox destination of score writes. */
export const SCORES_DESTINATION = 'langfuse:scores';
const MAX_SEEN_PER_STATEMENT = 200;
export function fromStateRow(r) {
    if (!r)
        return {
            watermarkMs: null,
            mode: 'v2',
            lastError: null,
            lastErrorMs: null,
            lastSuccessMs: null,
            observations: 0,
            calls: 0,
            windows: 0,
        };
    return {
        watermarkMs: numOrNull(r.watermark_ms),
        mode: r.mode === 'v1' ? 'v1' : 'v2',
        lastError: strOrNull(r.last_error),
        lastErrorMs: numOrNull(r.last_error_ms),
        lastSuccessMs: numOrNull(r.last_success_ms),
        observations: num(r.observations),
        calls: num(r.calls),
        windows: num(r.windows),
    };
}
/** Scores as outbox messages: the score id is the dedupe key (Langfuse upserts by it anyway). */
export function scoreMessages(bodies) {
    return bodies.map((b) => ({ key: b.id, payload: JSON.stringify(b) }));
}
export class LangfuseState {
    sql;
    outbox;
    constructor(sql) {
        this.sql = sql;
        this.outbox = new Outbox(sql);
    }
    static async open(sql, nowMs = Date.now()) {
        await sql.run(`INSERT INTO langfuse_state (source, mode, observations, calls, windows, updated_ms) VALUES (?, 'v2', 0, 0, 0, ?) ON CONFLICT (source) DO NOTHING`, [SOURCE_KEY, nowMs]);
        return new LangfuseState(sql);
    }
    async load() {
        const [r] = await this.sql.all('SELECT * FROM langfuse_state WHERE source = ?', [SOURCE_KEY]);
        return fromStateRow(r);
    }
    /** The window up to watermarkMs is done: advance it and forget seen ids that started before keepSinceMs. */
    async completeWindow(w) {
        await this.sql.tx(async (tx) => {
            await tx.run('UPDATE langfuse_state SET watermark_ms = ?, mode = ?, last_success_ms = ?, windows = windows + 1, updated_ms = ? WHERE source = ?', [w.watermarkMs, w.mode, w.nowMs, w.nowMs, SOURCE_KEY]);
            await tx.run('DELETE FROM langfuse_seen WHERE start_ms < ?', [w.keepSinceMs]);
        });
    }
    async recordError(message, mode, nowMs) {
        await this.sql.run('UPDATE langfuse_state SET last_error = ?, last_error_ms = ?, mode = ?, updated_ms = ? WHERE source = ?', [message, nowMs, mode, nowMs, SOURCE_KEY]);
    }
    /** Seen ids of observations that started at or after sinceMs (loaded when a process starts its first window). */
    async seenSince(sinceMs) {
        const rows = await this.sql.all('SELECT observation_id, start_ms FROM langfuse_seen WHERE start_ms >= ?', [
            sinceMs,
        ]);
        return new Map(rows.map((r) => [String(r.observation_id), num(r.start_ms)]));
    }
    /** Rows written inside the pipeline batch's own transaction: counted, remembered and owed atomically. */
    batchExtension(seen, calls, scores, nowMs) {
        return (tx) => {
            for (let i = 0; i < seen.length; i += MAX_SEEN_PER_STATEMENT) {
                const chunk = seen.slice(i, i + MAX_SEEN_PER_STATEMENT);
                tx.run(`INSERT INTO langfuse_seen (observation_id, start_ms) VALUES ${valuesList(chunk.length, 2)} ON CONFLICT DO NOTHING`, chunk.flatMap((s) => [s.id, s.startMs]));
            }
            tx.run('UPDATE langfuse_state SET observations = observations + ?, calls = calls + ?, updated_ms = ? WHERE source = ?', [seen.length, calls, nowMs, SOURCE_KEY]);
            for (const [text, params] of enqueueStatements(SCORES_DESTINATION, scoreMessages(scores), nowMs))
                tx.run(text, params);
        };
    }
    /** The user-feedback pull's own watermark (scores are given long after their trace), API mode and count. */
    async feedbackState() {
        const [r] = await this.sql.all('SELECT feedback_watermark_ms, feedback_mode, feedback_scores FROM langfuse_state WHERE source = ?', [SOURCE_KEY]);
        return {
            watermarkMs: numOrNull(r?.feedback_watermark_ms),
            mode: r?.feedback_mode === 'v2' ? 'v2' : 'v3',
            scores: num(r?.feedback_scores),
        };
    }
    /** A feedback window up to watermarkMs is stored: advance past it. */
    async completeFeedbackWindow(w) {
        await this.sql.run('UPDATE langfuse_state SET feedback_watermark_ms = ?, feedback_mode = ?, feedback_scores = feedback_scores + ?, updated_ms = ? WHERE source = ?', [w.watermarkMs, w.mode, w.scores, w.nowMs, SOURCE_KEY]);
    }
    async enqueueScores(scores, nowMs) {
        await this.outbox.enqueue(SCORES_DESTINATION, scoreMessages(scores), nowMs);
    }
    async pendingScores() {
        return this.outbox.pending(SCORES_DESTINATION);
    }
}
//# sourceMappingURL=state.js.map