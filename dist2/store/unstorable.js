/**
 * Whether a store error means the batch itself can never be stored — the database refused its data,
 * not the database being away — so answering 503 would only make the exporter resend it forever.
 * Such a batch is the client's fault (HTTP 400); everything else stays retryable (503).
 *
 * PostgreSQL: SQLSTATE class 22 (data exception: out of range, invalid byte sequence…), 23 (integrity
 * constraint) and 54 (program limit exceeded: an index row too large…). SQLite: constraint, type
 * mismatch, too big, out of range. The stores retry a refused group batch by batch, so the error seen
 * here belongs to this batch alone.
 */
const PG_DATA_CLASSES = new Set(['22', '23', '54']);
const SQLITE_DATA_CODES = /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG|RANGE)/;
export function isUnstorable(err) {
    if (err === null || typeof err !== 'object')
        return false;
    const code = err.code;
    if (typeof code !== 'string')
        return false;
    if (err.constructor?.name === 'SqliteError')
        return SQLITE_DATA_CODES.test(code);
    // pg's DatabaseError carries the server's SQLSTATE and severity.
    return 'severity' in err && code.length === 5 && PG_DATA_CLASSES.has(code.slice(0, 2));
}
//# sourceMappingURL=unstorable.js.map