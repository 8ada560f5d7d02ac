import { num } from './rows.js';
import { byteOrder, servicesMatch } from './sql.js';
export async function selectExecutionCounts(sql, q) {
    const args = [q.sinceMs, q.untilMs ?? Number.MAX_SAFE_INTEGER];
    let where = 'minute >= ? AND minute < ?';
    if (q.service)
        (where += ' AND service = ?'), args.push(q.service);
    if (q.services)
        where += ` AND ${servicesMatch(sql.dialect, 'service', q.services, (v) => (args.push(v), '?'))}`;
    const cols = ['service', 'model', 'tool', 'status', 'call_outcome'];
    const rows = await sql.all(`SELECT ${cols.join(', ')}, SUM(count) AS n FROM execution_minutes WHERE ${where}
     GROUP BY ${cols.join(', ')} ORDER BY ${cols.map((c) => byteOrder(sql, c)).join(', ')}`, args);
    return rows.map((r) => ({
        service: String(r.service),
        model: String(r.model),
        tool: String(r.tool),
        status: String(r.status),
        callOutcome: String(r.call_outcome),
        count: num(r.n),
    }));
}
//# sourceMappingURL=execution-counts.js.map