export const OTHER_PROBLEM = '_other';
export const PROBLEM_STATUSES = ['open', 'resolved', 'regressed', 'muted'];
export function problemExtension(deltas, opts) {
    return (tx) => {
        for (const d of deltas)
            writeDelta(tx, d, opts);
    };
}
const big = 'CAST(? AS BIGINT)';
const txt = 'CAST(? AS TEXT)';
function writeDelta(tx, d, { dialect, maxPerService, nowMs }) {
    const max = dialect === 'postgres' ? 'GREATEST' : 'MAX';
    const min = dialect === 'postgres' ? 'LEAST' : 'MIN';
    const id = d.signature.hash;
    const upsert = `ON CONFLICT (service, id) DO UPDATE SET
      occurrences = problems.occurrences + excluded.occurrences,
      first_seen_ms = ${min}(problems.first_seen_ms, excluded.first_seen_ms),
      last_seen_ms = ${max}(problems.last_seen_ms, excluded.last_seen_ms),
      status = CASE WHEN problems.status = 'resolved' THEN 'regressed' ELSE problems.status END,
      status_ms = CASE WHEN problems.status = 'resolved' THEN excluded.status_ms ELSE problems.status_ms END`;
    const cols = 'INSERT INTO problems (service, id, outcome, tool, canonical, parts, first_seen_ms, last_seen_ms, occurrences, status, status_ms, recorded_ms)';
    const vals = `${txt}, ${txt}, ${txt}, ${txt}, ${txt}, ${txt}, ${big}, ${big}, ${big}, 'open', ${big}, ${big}`;
    const statusMs = nowMs ?? d.lastMs;
    const recordedMs = nowMs ?? Date.now();
    const s = d.signature;
    if (d.stored) {
        // Its own row is known to exist (KnownRows): the same update the upsert below makes on conflict.
        tx.run(`UPDATE problems SET occurrences = occurrences + ${big}, first_seen_ms = ${min}(first_seen_ms, ${big}),
         last_seen_ms = ${max}(last_seen_ms, ${big}),
         status = CASE WHEN status = 'resolved' THEN 'regressed' ELSE status END,
         status_ms = CASE WHEN status = 'resolved' THEN ${big} ELSE status_ms END
       WHERE service = ? AND id = ?`, [d.occurrences, d.firstMs, d.lastMs, statusMs, d.service, id]);
        rowsOf(tx, d, { dialect, target: txt, targetArgs: [id] });
        return;
    }
    // Its own row: it exists, or the service has room.
    tx.run(`${cols} SELECT ${vals} WHERE EXISTS (SELECT 1 FROM problems WHERE service = ? AND id = ?)
       OR (SELECT COUNT(*) FROM problems WHERE service = ? AND id <> '${OTHER_PROBLEM}') < ${big} ${upsert}`, [
        d.service,
        id,
        s.outcome,
        s.tool,
        s.canonical,
        JSON.stringify(s.parts),
        d.firstMs,
        d.lastMs,
        d.occurrences,
        statusMs,
        recordedMs,
        d.service,
        id,
        d.service,
        maxPerService,
    ]);
    // Else the service's overflow row.
    tx.run(`${cols} SELECT ${vals} WHERE NOT EXISTS (SELECT 1 FROM problems WHERE service = ? AND id = ?) ${upsert}`, [
        d.service,
        OTHER_PROBLEM,
        OTHER_PROBLEM,
        OTHER_PROBLEM,
        JSON.stringify(['tw1', OTHER_PROBLEM, d.service]),
        '[]',
        d.firstMs,
        d.lastMs,
        d.occurrences,
        statusMs,
        recordedMs,
        d.service,
        id,
    ]);
    // The id its rows go under, decided by the statements above.
    rowsOf(tx, d, {
        dialect,
        target: `CASE WHEN EXISTS (SELECT 1 FROM problems WHERE service = ? AND id = ?) THEN ${txt} ELSE '${OTHER_PROBLEM}' END`,
        targetArgs: [d.service, id, id],
    });
}
/** The delta's hour, model and example rows, under `target` (an SQL expression of `targetArgs`). */
function rowsOf(tx, d, { dialect, target, targetArgs }) {
    const max = dialect === 'postgres' ? 'GREATEST' : 'MAX';
    const min = dialect === 'postgres' ? 'LEAST' : 'MIN';
    for (const [hour, count] of d.hours)
        tx.run(`INSERT INTO problem_hours (service, id, hour, count) SELECT ${txt}, ${target}, ${big}, ${big} WHERE 1 = 1
       ON CONFLICT (service, id, hour) DO UPDATE SET count = problem_hours.count + excluded.count`, [d.service, ...targetArgs, hour, count]);
    for (const [model, m] of d.models)
        tx.run(`INSERT INTO problem_models (service, id, model, count, first_seen_ms, last_seen_ms)
       SELECT ${txt}, ${target}, ${txt}, ${big}, ${big}, ${big} WHERE 1 = 1
       ON CONFLICT (service, id, model) DO UPDATE SET count = problem_models.count + excluded.count,
         first_seen_ms = ${min}(problem_models.first_seen_ms, excluded.first_seen_ms),
         last_seen_ms = ${max}(problem_models.last_seen_ms, excluded.last_seen_ms)`, [d.service, ...targetArgs, model, m.count, m.firstMs, m.lastMs]);
    for (const ex of d.examples.values()) {
        // The first and each model's first are kept once; the latest is replaced by a later one.
        const onConflict = ex.slot === 'latest'
            ? `DO UPDATE SET time_ms = excluded.time_ms, model = excluded.model, trace_id = excluded.trace_id,
             span_id = excluded.span_id, name = excluded.name, arguments = excluded.arguments, message = excluded.message
           WHERE excluded.time_ms >= problem_examples.time_ms`
            : 'DO NOTHING';
        tx.run(`INSERT INTO problem_examples (service, id, slot, time_ms, model, trace_id, span_id, name, arguments, message)
       SELECT ${txt}, ${target}, ${txt}, ${big}, ${txt}, ${txt}, ${txt}, ${txt}, ${txt}, ${txt} WHERE 1 = 1
       ON CONFLICT (service, id, slot) ${onConflict}`, [
            d.service,
            ...targetArgs,
            ex.slot,
            ex.timeMs,
            ex.model,
            ex.traceId,
            ex.spanId,
            ex.name,
            ex.arguments ?? null,
            ex.message,
        ]);
    }
}
/** A stored signature's parts (a JSON array of strings). */
export function partsOf(stored) {
    try {
        const v = JSON.parse(String(stored));
        if (Array.isArray(v))
            return v.map(String);
    }
    catch {
        // A row no writer of ours made reads as having no parts.
    }
    return [];
}
function toProblem(r) {
    const parts = partsOf(r.parts);
    return {
        service: String(r.service),
        id: String(r.id),
        outcome: String(r.outcome),
        tool: String(r.tool),
        canonical: String(r.canonical),
        parts,
        firstSeenMs: Number(r.first_seen_ms),
        lastSeenMs: Number(r.last_seen_ms),
        occurrences: Number(r.occurrences),
        status: String(r.status),
        statusMs: Number(r.status_ms),
        mutedUntilMs: r.muted_until_ms === null || r.muted_until_ms === undefined ? null : Number(r.muted_until_ms),
    };
}
/** Every problem of a service (all services when undefined), most occurrences first. */
export async function listProblems(sql, service) {
    const rows = await sql.all(`SELECT * FROM problems ${service === undefined ? '' : 'WHERE service = ?'} ORDER BY occurrences DESC, id`, service === undefined ? [] : [service]);
    return rows.map(toProblem);
}
export async function problemHours(sql, service, id) {
    const rows = await sql.all('SELECT hour, count FROM problem_hours WHERE service = ? AND id = ? ORDER BY hour', [
        service,
        id,
    ]);
    return rows.map((r) => ({ hour: Number(r.hour), count: Number(r.count) }));
}
export async function problemModels(sql, service, id) {
    const rows = await sql.all('SELECT model, count FROM problem_models WHERE service = ? AND id = ? ORDER BY count DESC, model', [service, id]);
    return rows.map((r) => ({ model: String(r.model), count: Number(r.count) }));
}
export async function problemExamples(sql, service, id) {
    return sql.all('SELECT * FROM problem_examples WHERE service = ? AND id = ? ORDER BY slot', [service, id]);
}
/**
 * Problems seen since the window's start, new (first seen in it) and regressed ones first, then by
 * occurrences in the window. The service view is applied before the limit.
 */
export async function queryProblems(sql, f) {
    const hour = f.sinceMs - (f.sinceMs % 3_600_000);
    const where = ['p.last_seen_ms >= ?'];
    const args = [hour, f.sinceMs];
    for (const [column, value] of [
        ['p.status', f.status],
        ['p.service', f.service],
        ['p.tool', f.tool],
        ['p.outcome', f.outcome],
    ])
        if (value !== undefined)
            where.push(`${column} = ?`), args.push(value);
    if (f.model !== undefined) {
        where.push('EXISTS (SELECT 1 FROM problem_models m WHERE m.service = p.service AND m.id = p.id AND m.model = ?)');
        args.push(f.model);
    }
    const rows = await sql.all(`SELECT p.*, (SELECT COALESCE(SUM(h.count), 0) FROM problem_hours h
                  WHERE h.service = p.service AND h.id = p.id AND h.hour >= ?) AS recent
     FROM problems p WHERE ${where.join(' AND ')}`, args);
    const listed = rows
        .map((r) => ({ ...toProblem(r), recent: Number(r.recent) }))
        .filter((p) => f.sees(p.service))
        .map((p) => ({ ...p, isNew: p.firstSeenMs >= f.sinceMs }));
    const first = (p) => (p.status === 'regressed' || (p.isNew && p.status === 'open') ? 0 : 1);
    listed.sort((a, b) => first(a) - first(b) ||
        b.recent - a.recent ||
        b.occurrences - a.occurrences ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return listed.slice(0, f.limit);
}
/** One problem by id; the same id may exist in several services (`_other`), so the service may be given. */
export async function problemById(sql, id, service) {
    const rows = await sql.all(`SELECT * FROM problems WHERE id = ?${service === undefined ? '' : ' AND service = ?'} ORDER BY service`, service === undefined ? [id] : [id, service]);
    return rows.map(toProblem);
}
//# sourceMappingURL=store.js.map