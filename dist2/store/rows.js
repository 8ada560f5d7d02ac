export const num = (v) => Number(v ?? 0);
export const numOrNull = (v) => (v === null || v === undefined ? null : Number(v));
export const strOrNull = (v) => (v === null || v === undefined ? null : String(v));
export const optStr = (v) => (v === null || v === undefined ? undefined : String(v));
/** Booleans are INTEGER 0/1 on both engines. */
export const boolOrNull = (v) => (v === null || v === undefined ? null : Number(v) === 1);
export function fromFailureRow(r) {
    return {
        id: num(r.id),
        timeMs: num(r.time_ms),
        source: String(r.source),
        service: String(r.service),
        model: String(r.model),
        tool: String(r.tool),
        name: String(r.name),
        outcome: String(r.outcome),
        traceId: String(r.trace_id),
        spanId: String(r.span_id),
        ...(r.call_id ? { callId: String(r.call_id) } : {}),
        ...(r.arguments !== null && r.arguments !== undefined ? { arguments: String(r.arguments) } : {}),
        ...(r.arguments_omitted ? { argumentsOmitted: String(r.arguments_omitted) } : {}),
        ...(r.reason ? { reason: String(r.reason) } : {}),
        errors: parseErrors(r.errors),
        message: String(r.message),
    };
}
/** A stored errors column that is not a JSON array (a row no writer of ours made) reads as none. */
function parseErrors(text) {
    try {
        const v = JSON.parse(typeof text === 'string' ? text : '[]');
        return Array.isArray(v) ? v : [];
    }
    catch {
        return [];
    }
}
//# sourceMappingURL=rows.js.map