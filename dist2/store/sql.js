/**
 * The SQL port the store exposes to features (alerts, judge, Langfuse state, the delivery outbox):
 * every feature writes its SQL once for both databases. SQL uses `?` placeholders (rewritten to
 * $n for PostgreSQL) and only syntax both accept (INSERT … ON CONFLICT, RETURNING, CAST, CASE).
 * PostgreSQL returns BIGINT and COUNT as strings: read numbers through the mappers in rows.ts.
 */
import { likePattern, sqliteGlob } from '../util/glob.js';
/** `?` → `$1, $2 …` (our SQL never has a `?` inside a string literal). */
export function toPg(sql) {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
}
/** ORDER BY text as bytes on both engines (SQLite's default; PostgreSQL's depends on the cluster's locale). */
export function byteOrder(sql, column) {
    return sql.dialect === 'postgres' ? `${column} COLLATE "C"` : column;
}
/** `(?, ?, …)` for one row of n values, repeated for rows: the VALUES list of a multi-row INSERT. */
export function valuesList(rows, columns) {
    const row = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
    return Array.from({ length: rows }, () => row).join(', ');
}
/**
 * Rows of the services a reader may see (src/util/service-view.ts): `column` matches one of the globs, on
 * SQLite by GLOB and on PostgreSQL by LIKE, both case-sensitive. `param` adds a value and returns its
 * placeholder. No globs: no rows.
 */
export function servicesMatch(dialect, column, globs, param) {
    if (globs.length === 0)
        return '1 = 0';
    const one = (g) => dialect === 'postgres'
        ? `${column} LIKE ${param(likePattern(g))} ESCAPE '\\'`
        : `${column} GLOB ${param(sqliteGlob(g))}`;
    return `(${globs.map(one).join(' OR ')})`;
}
//# sourceMappingURL=sql.js.map