/**
 * A call waiting out its grace period is persisted with its batch (pending_calls.payload), so a
 * restart keeps it. The payload is versioned and checked when read back: a row this version cannot
 * read is reported and skipped, never cast into a call.
 */
import { Ajv } from 'ajv';
import type { SourceName } from '../model.js';
import type { PendingRow } from '../store/store.js';
import type { PendingCall } from './ledger.js';
import type { CallToCount } from './merge.js';

/**
 * Written into every payload. Rows from before versioning (no `v`) have the same shape as 1.
 * 2 adds the call's instrumentation scope (`scope`, `scopeVersion`), optional, so 1 reads as 2.
 */
export const PENDING_PAYLOAD_VERSION = 2;

const str = { type: 'string' } as const;
const payloadSchema = {
  type: 'object',
  required: ['source', 'call'],
  properties: {
    v: { enum: [1, PENDING_PAYLOAD_VERSION] },
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
            { type: 'object', required: ['kind', 'value', 'raw'], properties: { kind: { const: 'structured' }, value: {}, raw: str } },
          ],
        },
        offered: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: str, description: str } } },
        timeMs: { type: 'number' },
        fromExecution: { type: 'boolean' },
        scope: str,
        scopeVersion: str,
      },
    },
  },
} as const;

const validate = new Ajv({ allErrors: false, strict: true }).compile<{ v?: number; source: SourceName; call: CallToCount }>(payloadSchema);

export function encodePending(p: PendingCall): PendingRow {
  return { traceId: p.traceId, callKey: p.key, dueMs: p.dueMs, payload: JSON.stringify({ v: PENDING_PAYLOAD_VERSION, source: p.source, call: p.call }) };
}

export type DecodedPending = { ok: true; call: PendingCall } | { ok: false; reason: string };

export function decodePending(r: PendingRow): DecodedPending {
  let doc: unknown;
  try {
    doc = JSON.parse(r.payload);
  } catch (err) {
    return { ok: false, reason: `not JSON: ${(err as Error).message}` };
  }
  if (!validate(doc)) {
    const e = validate.errors?.[0];
    return { ok: false, reason: `unreadable payload: ${e ? `${e.instancePath || '/'} ${e.message ?? ''}`.trim() : 'invalid'}` };
  }
  return { ok: true, call: { source: doc.source, traceId: r.traceId, key: r.callKey, dueMs: r.dueMs, call: doc.call } };
}
