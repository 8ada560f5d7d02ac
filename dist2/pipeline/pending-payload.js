/**
 * A call waiting out its grace period is persisted with its batch (pending_calls.payload), so a
 * restart keeps it. The payload is versioned and checked when read back: a row this version cannot
 * read is reported and skipped, never cast into a call.
 */
import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';
import { storableText } from '../store/storable-text.js';
/**
 * Written into every payload. Rows from before versioning (no `v`) have the same shape as 1.
 * 2 adds the call's instrumentation scope (`scope`, `scopeVersion`), optional, so 1 reads as 2; the
 * optional `budget` (its sender's label budget, metrics/label-cap.ts) came later within 2: a row without
 * it is labelled on the shared cap, and an older process ignores it.
 */
export const PENDING_PAYLOAD_VERSION = 2;
const str = { type: 'string' };
const payloadSchema = {
    type: 'object',
    required: ['source', 'call'],
    properties: {
        v: { enum: [1, PENDING_PAYLOAD_VERSION] },
        key: str,
        source: { enum: ['otlp', 'langfuse'] },
        call: {
            type: 'object',
            required: ['traceId', 'spanId', 'service', 'model', 'name', 'args', 'timeMs', 'fromExecution'],
            properties: {
                traceId: str,
                spanId: str,
                callId: str,
                service: str,
                model: str,
                name: str,
                args: {
                    oneOf: [
                        { type: 'object', required: ['kind'], properties: { kind: { const: 'none' } } },
                        { type: 'object', required: ['kind', 'raw'], properties: { kind: { const: 'string' }, raw: str } },
                        {
                            type: 'object',
                            required: ['kind', 'value', 'raw'],
                            properties: { kind: { const: 'structured' }, value: {}, raw: str },
                        },
                    ],
                },
                offered: {
                    type: 'array',
                    items: { type: 'object', required: ['name'], properties: { name: str, description: str } },
                },
                timeMs: { type: 'number' },
                fromExecution: { type: 'boolean' },
                scope: str,
                scopeVersion: str,
                budget: str,
            },
        },
    },
};
const validate = new Ajv({ allErrors: false, strict: true }).compile(payloadSchema);
/**
 * The pending row's key as stored: written and deleted through this one function, so both match.
 * A call id can be as long as a span attribute; past MAX_KEY it is shortened with a digest of the
 * whole (an index row has a size limit: PostgreSQL refuses one over about 2.7 KB), and made storable
 * (storable-text.ts). Idempotent: a stored key maps to itself.
 */
const MAX_KEY = 256;
export function storedPendingKey(traceId, key) {
    const short = (k) => k.length <= MAX_KEY ? k : `${k.slice(0, MAX_KEY - 66)}#${createHash('sha256').update(k).digest('hex')}`;
    return { traceId: storableText(short(traceId)), callKey: storableText(short(key)) };
}
/**
 * JSON.stringify escapes NUL and lone surrogates, so the payload is storable as it is. It carries the
 * call's own trace id and, when the stored key is not the ledger's, the key: read back, the call pairs
 * with its proposal under the same keys as before the restart. `owner`: the process holding the row
 * (pending-owner.ts).
 */
export function encodePending(p, owner) {
    const stored = storedPendingKey(p.traceId, p.key);
    const key = stored.callKey !== p.key ? { key: p.key } : {};
    const doc = { v: PENDING_PAYLOAD_VERSION, source: p.source, call: p.call, ...key };
    return { ...stored, dueMs: p.dueMs, payload: JSON.stringify(doc), owner };
}
export function decodePending(r) {
    let doc;
    try {
        doc = JSON.parse(r.payload);
    }
    catch (err) {
        return { ok: false, reason: `not JSON: ${err.message}` };
    }
    if (!validate(doc)) {
        const e = validate.errors?.[0];
        return {
            ok: false,
            reason: `unreadable payload: ${e ? `${e.instancePath || '/'} ${e.message ?? ''}`.trim() : 'invalid'}`,
        };
    }
    const key = doc.key ?? r.callKey;
    return { ok: true, call: { source: doc.source, traceId: doc.call.traceId, key, dueMs: r.dueMs, call: doc.call } };
}
//# sourceMappingURL=pending-payload.js.map