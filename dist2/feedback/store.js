/**
 * Feedback per trace, over the store's SQL port (one text for both engines). One row per trace and
 * source: the latest value wins (by the time the feedback was given, so an older item read again —
 * a Langfuse overlap, a resent span — never replaces a newer one).
 */
import { num, optStr } from '../store/rows.js';
import { servicesMatch, valuesList } from '../store/sql.js';
import { storableText } from '../store/storable-text.js';
import { bucketOf } from './value.js';
const CHUNK = 200;
const chunks = (xs) => Array.from({ length: Math.ceil(xs.length / CHUNK) }, (_, i) => xs.slice(i * CHUNK, (i + 1) * CHUNK));
const marks = (n) => Array.from({ length: n }, () => '?').join(', ');
export class FeedbackStore {
    sql;
    constructor(sql) {
        this.sql = sql;
    }
    /**
     * Writes items (the last of several for one trace and source wins) in one transaction. Items
     * without a service take the stored row's, else `resolve`'s answer for their trace.
     */
    async record(items, nowMs, resolve) {
        const latest = new Map();
        // Text from spans and the API, kept alike by both engines (PostgreSQL refuses NUL outright).
        for (const it of items.map(storableItem)) {
            const key = `${it.traceId}\u0000${it.source}`;
            const prev = latest.get(key);
            if (!prev || it.timeMs >= prev.timeMs)
                latest.set(key, it);
        }
        const wanted = [...latest.values()];
        if (wanted.length === 0)
            return { stored: 0, counted: [] };
        const existing = await this.existing(wanted.map((i) => i.traceId));
        // A trace's service as any of its stored rows says (feedback from another source), else as `resolve` finds it.
        const known = new Map([...existing.values()].map((e) => [e.traceId, e.service]));
        const unknown = [...new Set(wanted.filter((i) => !i.service && !known.has(i.traceId)).map((i) => i.traceId))];
        const resolved = unknown.length ? await resolve(unknown) : new Map();
        const writes = [];
        const counted = [];
        for (const it of wanted) {
            const prev = existing.get(`${it.traceId}\u0000${it.source}`);
            if (prev && prev.timeMs > it.timeMs)
                continue;
            const service = it.service ?? prev?.service ?? known.get(it.traceId) ?? resolved.get(it.traceId) ?? 'unknown';
            const w = { ...it, service };
            writes.push(w);
            if (!prev || prev.value !== it.value)
                counted.push(w);
        }
        await this.sql.tx(async (tx) => {
            for (const part of chunks(writes)) {
                await tx.run(`INSERT INTO feedback (trace_id, source, service, value, comment, origin, time_ms, received_ms)
           VALUES ${valuesList(part.length, 8)}
           ON CONFLICT (trace_id, source) DO UPDATE SET service = excluded.service, value = excluded.value,
             comment = excluded.comment,
             origin = excluded.origin, time_ms = excluded.time_ms, received_ms = excluded.received_ms
           WHERE excluded.time_ms >= feedback.time_ms`, part.flatMap((w) => [
                    w.traceId,
                    w.source,
                    w.service,
                    w.value,
                    w.comment ?? null,
                    w.origin,
                    Math.floor(w.timeMs),
                    nowMs,
                ]));
            }
        });
        return { stored: writes.length, counted };
    }
    async existing(traceIds) {
        const out = new Map();
        for (const part of chunks([...new Set(traceIds)])) {
            const rows = await this.sql.all(`SELECT trace_id, source, value, time_ms, service FROM feedback WHERE trace_id IN (${marks(part.length)})`, part);
            for (const r of rows) {
                out.set(`${String(r.trace_id)}\u0000${String(r.source)}`, {
                    traceId: String(r.trace_id),
                    value: num(r.value),
                    timeMs: num(r.time_ms),
                    service: String(r.service),
                });
            }
        }
        return out;
    }
    /** Which of these traces have negative feedback from any source (the judge's feedback stratum). */
    async negativeTraces(traceIds) {
        const out = new Set();
        for (const part of chunks([...new Set(traceIds)])) {
            const rows = await this.sql.all(`SELECT DISTINCT trace_id FROM feedback WHERE value < 0 AND trace_id IN (${marks(part.length)})`, part);
            for (const r of rows)
                out.add(String(r.trace_id));
        }
        return out;
    }
    /** Per service: traces with feedback given in [sinceMs, untilMs) and how many of them got a negative value. */
    async rates(q) {
        const args = [q.sinceMs, q.untilMs];
        if (q.service)
            args.push(q.service);
        const rows = await this.sql.all(`SELECT service, COUNT(*) AS traces, SUM(CASE WHEN low < 0 THEN 1 ELSE 0 END) AS negative
       FROM (SELECT service, trace_id, MIN(value) AS low FROM feedback
             WHERE time_ms >= ? AND time_ms < ?${q.service ? ' AND service = ?' : ''}
             GROUP BY service, trace_id) t
       GROUP BY service ORDER BY service`, args);
        return rows.map((r) => ({ service: String(r.service), traces: num(r.traces), negative: num(r.negative) }));
    }
    /**
     * Traces with feedback given since sinceMs, newest first, one entry per trace: `bucket` keeps only
     * traces with at least one value in it (negative: any value < 0). For the export and the API.
     */
    async traces(q) {
        const where = ['time_ms >= ?'];
        const args = [q.sinceMs];
        if (q.service)
            where.push('service = ?'), args.push(q.service);
        if (q.services)
            where.push(servicesMatch(this.sql.dialect, 'service', q.services, (v) => (args.push(v), '?')));
        if (q.traceIds) {
            if (q.traceIds.length === 0)
                return [];
            where.push(`trace_id IN (${marks(q.traceIds.length)})`);
            args.push(...q.traceIds);
        }
        const rows = await this.sql.all(`SELECT trace_id, service, source, value, comment, time_ms FROM feedback
       WHERE ${where.join(' AND ')} ORDER BY time_ms DESC`, args);
        const byTrace = new Map();
        for (const r of rows) {
            const id = String(r.trace_id);
            const value = num(r.value);
            let t = byTrace.get(id);
            if (!t)
                byTrace.set(id, (t = {
                    traceId: id,
                    service: String(r.service),
                    value,
                    bucket: bucketOf(value),
                    comments: [],
                    sources: [],
                    timeMs: num(r.time_ms),
                    buckets: new Set(),
                }));
            if (value < t.value)
                (t.value = value), (t.bucket = bucketOf(value));
            t.buckets.add(bucketOf(value));
            t.sources.push(String(r.source));
            const c = optStr(r.comment);
            if (c)
                t.comments.push(c);
        }
        const out = [];
        for (const { buckets, ...t } of byTrace.values()) {
            if (q.bucket && !buckets.has(q.bucket))
                continue;
            out.push(t);
            if (out.length >= q.limit)
                break;
        }
        return out;
    }
    /**
     * The service of each trace as toolwatch already knows it (its sampled trajectory, else its failure
     * records): feedback senders rarely say which service a trace was. Read-only lookups by indexed trace id.
     */
    async servicesOf(traceIds) {
        const out = new Map();
        for (const part of chunks([...new Set(traceIds)])) {
            for (const r of await this.sql.all(`SELECT trace_id, service FROM judge_trajectories WHERE trace_id IN (${marks(part.length)})`, part)) {
                out.set(String(r.trace_id), String(r.service));
            }
            const rest = part.filter((id) => !out.has(id));
            if (rest.length === 0)
                continue;
            for (const r of await this.sql.all(`SELECT trace_id, MIN(service) AS service FROM failures WHERE trace_id IN (${marks(rest.length)}) GROUP BY trace_id`, rest)) {
                out.set(String(r.trace_id), String(r.service));
            }
        }
        return out;
    }
    /**
     * Every service toolwatch has seen a trace under — its sampled trajectory, its failure records and
     * its stored feedback — for checking a service-restricted sender (POST /api/feedback).
     */
    async servicesSeen(traceIds) {
        const out = new Map();
        const add = (rows) => {
            for (const r of rows) {
                const id = String(r.trace_id);
                let set = out.get(id);
                if (!set)
                    out.set(id, (set = new Set()));
                set.add(String(r.service));
            }
        };
        for (const part of chunks([...new Set(traceIds)])) {
            const ids = marks(part.length);
            for (const table of ['judge_trajectories', 'failures', 'feedback'])
                add(await this.sql.all(`SELECT DISTINCT trace_id, service FROM ${table} WHERE trace_id IN (${ids})`, part));
        }
        return out;
    }
    async prune(beforeMs) {
        return this.sql.run('DELETE FROM feedback WHERE time_ms < ?', [beforeMs]);
    }
}
/** An item whose text both engines store as it is (storable-text.ts). */
function storableItem(it) {
    return {
        ...it,
        traceId: storableText(it.traceId),
        source: storableText(it.source),
        ...(it.service !== undefined ? { service: storableText(it.service) } : {}),
        ...(it.comment !== undefined ? { comment: storableText(it.comment) } : {}),
    };
}
//# sourceMappingURL=store.js.map