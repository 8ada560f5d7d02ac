import { num } from './rows.js';
import { byteOrder, servicesMatch } from './sql.js';
const COLUMNS = ['service', 'model', 'tool'];
export async function selectCallSeries(sql, q) {
    if (!(q.stepMs > 0) || q.stepMs % 60_000 !== 0)
        throw new Error(`a series step is a whole number of minutes, got ${q.stepMs} ms`);
    if (q.originMs > q.sinceMs)
        throw new Error('a series origin lies at or before its start');
    // A fixed order, and only known columns: `by` never reaches the SQL as text of its own.
    const dims = COLUMNS.filter((c) => q.by.includes(c));
    const cols = [...dims, 'outcome'];
    const args = [q.originMs, q.stepMs, q.sinceMs, q.untilMs];
    let where = 'minute >= ? AND minute < ?';
    if (q.service !== undefined)
        (where += ' AND service = ?'), args.push(q.service);
    if (q.services)
        where += ` AND ${servicesMatch(sql.dialect, 'service', q.services, (v) => (args.push(v), '?'))}`;
    const rows = await sql.all(
    // The casts keep the division integral on SQLite too, which binds JS numbers as REAL.
    `SELECT (minute - CAST(? AS BIGINT)) / CAST(? AS BIGINT) AS b, ${cols.join(', ')}, SUM(count) AS n, MIN(minute) AS first_minute
     FROM call_minutes WHERE ${where}
     GROUP BY b, ${cols.join(', ')} ORDER BY b, ${cols.map((c) => byteOrder(sql, c)).join(', ')}`, args);
    return rows.map((r) => {
        const row = {
            bucket: q.originMs + Math.floor(num(r.b)) * q.stepMs,
            outcome: String(r.outcome),
            count: num(r.n),
            firstMinute: num(r.first_minute),
        };
        for (const d of dims)
            row[d] = String(r[d]);
        return row;
    });
}
//# sourceMappingURL=call-series.js.map