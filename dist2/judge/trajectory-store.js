/**
 * The judge's trajectories over the store's SQL port: the rows a batch adds for its candidate traces
 * inside the core store's transaction (see trajectory.ts), completing idle ones (sampled → pending,
 * the rest dropped), reading one back, the attempts the job makes at them, and their retention.
 */
import { num, optStr } from '../store/rows.js';
import { servicesMatch } from '../store/sql.js';
import { storableText } from '../store/storable-text.js';
import { assemble } from './assemble.js';
const MAX_STEP_ROWS_PER_STATEMENT = 200; // 6 parameters each: far below SQLite's limit
/**
 * A trajectory's service is the one it was first stored under and never changes (an earlier span of
 * another service only widens its time range); `writable` restricts which trajectories a batch may add to.
 */
const upsertHeader = (writable) => `
  INSERT INTO judge_trajectories (trace_id, service, first_ms, end_ms, last_seen_ms, has_failure, position, status, updated_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?)
  ON CONFLICT (trace_id) DO UPDATE SET
    first_ms = CASE WHEN excluded.first_ms < judge_trajectories.first_ms THEN excluded.first_ms ELSE judge_trajectories.first_ms END,
    end_ms = CASE WHEN excluded.end_ms > judge_trajectories.end_ms THEN excluded.end_ms ELSE judge_trajectories.end_ms END,
    last_seen_ms = CASE WHEN excluded.last_seen_ms > judge_trajectories.last_seen_ms THEN excluded.last_seen_ms ELSE judge_trajectories.last_seen_ms END,
    has_failure = CASE WHEN excluded.has_failure = 1 THEN 1 ELSE judge_trajectories.has_failure END,
    updated_ms = excluded.updated_ms
  WHERE judge_trajectories.status = 'open'${writable}`;
/**
 * Steps only join an open trajectory (spans arriving after it completed are ignored, documented) whose
 * service the sender may write (`writable`).
 */
function insertSteps(n, writable) {
    const row = '(?, ?, CAST(? AS BIGINT), CAST(? AS BIGINT), ?, ?)';
    return `INSERT INTO judge_steps (trace_id, span_id, start_ms, end_ms, kind, payload)
    SELECT * FROM (VALUES ${Array.from({ length: n }, () => row).join(', ')}) AS v
    WHERE EXISTS (SELECT 1 FROM judge_trajectories WHERE trace_id = ? AND status = 'open'${writable})
    ON CONFLICT (trace_id, span_id) DO NOTHING`;
}
function statementsFor(w, dialect) {
    // The sender's globs against the stored trajectory's service, as SQL and its parameters.
    const globArgs = [];
    const writable = w.writer
        ? ` AND ${servicesMatch(dialect, 'judge_trajectories.service', w.writer, (v) => (globArgs.push(v), '?'))}`
        : '';
    const out = [
        [
            upsertHeader(writable),
            [
                storableText(w.traceId),
                storableText(w.service),
                w.firstMs,
                w.endMs,
                w.seenMs,
                w.hasFailure ? 1 : 0,
                w.position,
                w.seenMs,
                ...globArgs,
            ],
        ],
    ];
    for (let i = 0; i < w.steps.length; i += MAX_STEP_ROWS_PER_STATEMENT) {
        const chunk = w.steps.slice(i, i + MAX_STEP_ROWS_PER_STATEMENT);
        // Span ids are hex (OTLP) or Langfuse ids; the payload is JSON, whose escapes are storable.
        const traceId = storableText(w.traceId);
        const params = chunk.flatMap((s) => [traceId, storableText(s.spanId), s.startMs, s.endMs, s.kind, s.payload]);
        out.push([insertSteps(chunk.length, writable), [...params, traceId, ...globArgs]]);
    }
    return out;
}
/** Idle candidates read per SELECT when completing them. */
const FINALIZE_BATCH = 5000;
export class TrajectoryStore {
    sql;
    constructor(sql) {
        this.sql = sql;
    }
    /** The rows one batch adds for its candidate traces, inside the batch's own transaction. */
    ingestExtension(writes) {
        const statements = writes.flatMap((w) => statementsFor(w, this.sql.dialect));
        return (tx) => {
            for (const [text, params] of statements)
                tx.run(text, params);
        };
    }
    /**
     * Completes idle candidates: sampled → pending (with their probability), the rest → dropped (steps
     * deleted). `negativeFeedback` says which of them got negative user feedback by now (their stratum).
     * Reads them in batches until none is left (at most `maxBatches` of FINALIZE_BATCH), so a backlog
     * never outgrows what one call completes: every idle candidate's steps are gone once it returns.
     */
    async finalize(nowMs, idleMs, probabilityOf, negativeFeedback, maxBatches = 100) {
        const cutoff = nowMs - idleMs;
        let pending = 0;
        let dropped = 0;
        for (let batch = 0; batch < maxBatches; batch++) {
            const rows = await this.sql.all(`SELECT trace_id, service, has_failure, position FROM judge_trajectories
         WHERE status = 'open' AND last_seen_ms <= ? ORDER BY last_seen_ms LIMIT ${FINALIZE_BATCH}`, [cutoff]);
            const ids = rows.map((r) => String(r.trace_id));
            const negative = negativeFeedback && rows.length ? await negativeFeedback(ids) : new Set();
            for (const r of rows) {
                const p = probabilityOf(String(r.service), num(r.has_failure) === 1, negative.has(String(r.trace_id)));
                const sampled = num(r.position) < p;
                await this.sql.tx(async (tx) => {
                    // Re-checked in the UPDATE: a span may have arrived (on another replica) since the SELECT.
                    const changed = await tx.run(`UPDATE judge_trajectories SET status = ?, probability = ?, updated_ms = ?
             WHERE trace_id = ? AND status = 'open' AND last_seen_ms <= ?`, [sampled ? 'pending' : 'dropped', p, nowMs, r.trace_id, cutoff]);
                    if (changed === 0)
                        return;
                    if (sampled)
                        pending++;
                    else {
                        dropped++;
                        await tx.run('DELETE FROM judge_steps WHERE trace_id = ?', [r.trace_id]);
                    }
                });
            }
            // A row a span touched meanwhile is no longer idle, so the next SELECT cannot return it again.
            if (rows.length < FINALIZE_BATCH)
                break;
        }
        return { pending, dropped };
    }
    async pendingIds(limit) {
        // Oldest first, so what a capped run left behind goes first next time.
        const rows = await this.sql.all(`SELECT trace_id FROM judge_trajectories WHERE status = 'pending' ORDER BY last_seen_ms, trace_id LIMIT ?`, [limit]);
        return rows.map((r) => String(r.trace_id));
    }
    /** `services`: only trajectories of services matching these globs (a reader's view). */
    async countByStatus(services) {
        const args = [];
        const where = services
            ? `WHERE ${servicesMatch(this.sql.dialect, 'service', services, (v) => (args.push(v), '?'))}`
            : '';
        const rows = await this.sql.all(`SELECT status, COUNT(*) AS n FROM judge_trajectories ${where} GROUP BY status`, args);
        return Object.fromEntries(rows.map((r) => [String(r.status), num(r.n)]));
    }
    async trajectory(traceId) {
        const [h] = await this.sql.all('SELECT * FROM judge_trajectories WHERE trace_id = ?', [traceId]);
        if (!h || h.status === 'dropped')
            return undefined;
        const rows = await this.sql.all('SELECT payload FROM judge_steps WHERE trace_id = ?', [traceId]);
        const steps = [];
        for (const r of rows) {
            try {
                steps.push(JSON.parse(String(r.payload)));
            }
            catch {
                // An unreadable step is left out rather than failing the whole trajectory.
            }
        }
        const header = {
            traceId,
            service: String(h.service),
            firstMs: num(h.first_ms),
            endMs: num(h.end_ms),
            hasFailure: num(h.has_failure) === 1,
            status: String(h.status),
            probability: h.probability === null || h.probability === undefined ? null : num(h.probability),
            attempts: num(h.attempts),
            ...(optStr(h.last_error) ? { lastError: optStr(h.last_error) } : {}),
        };
        return assemble(header, steps);
    }
    /** Which of these traces have a trajectory that GET /api/trajectories/:traceId would return (not dropped). */
    async storedTraceIds(traceIds) {
        const ids = [...new Set(traceIds)].slice(0, 500);
        if (ids.length === 0)
            return new Set();
        const rows = await this.sql.all(`SELECT trace_id FROM judge_trajectories WHERE status <> 'dropped' AND trace_id IN (${ids.map(() => '?').join(', ')})`, ids);
        return new Set(rows.map((r) => String(r.trace_id)));
    }
    /** The item could not be judged now (transport, caps, redaction): it stays pending. */
    async recordAttemptFailure(traceId, error, nowMs) {
        await this.sql.run(`UPDATE judge_trajectories SET attempts = attempts + 1, last_error = ?, updated_ms = ? WHERE trace_id = ? AND status = 'pending'`, [error.slice(0, 2000), nowMs, traceId]);
    }
    async prune(beforeMs) {
        return this.sql.tx(async (tx) => {
            const old = `SELECT trace_id FROM judge_trajectories WHERE status IN ('judged', 'error', 'dropped') AND updated_ms < ?`;
            let removed = await tx.run(`DELETE FROM judge_steps WHERE trace_id IN (${old})`, [beforeMs]);
            removed += await tx.run(`DELETE FROM judge_trajectories WHERE status IN ('judged', 'error', 'dropped') AND updated_ms < ?`, [beforeMs]);
            return removed;
        });
    }
}
//# sourceMappingURL=trajectory-store.js.map