/**
 * Row mappers shared by both engines and every feature: PostgreSQL returns BIGINT, NUMERIC and COUNT
 * as strings, SQLite as numbers; NULL is null on both.
 */
import type { InvalidJsonCause, OutcomeName, SourceName, ValidationError } from '../model.js';
import type { Row } from './sql.js';
import type { StoredFailure } from './store.js';

export const num = (v: unknown): number => Number(v ?? 0);
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
export const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
export const optStr = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : String(v));
/** Booleans are INTEGER 0/1 on both engines. */
export const boolOrNull = (v: unknown): boolean | null => (v === null || v === undefined ? null : Number(v) === 1);

export function fromFailureRow(r: Row): StoredFailure {
  return {
    id: num(r.id),
    timeMs: num(r.time_ms),
    source: String(r.source) as SourceName,
    service: String(r.service),
    model: String(r.model),
    tool: String(r.tool),
    name: String(r.name),
    outcome: String(r.outcome) as Exclude<OutcomeName, 'valid' | 'unvalidated'>,
    traceId: String(r.trace_id),
    spanId: String(r.span_id),
    ...(r.call_id ? { callId: String(r.call_id) } : {}),
    ...(r.arguments !== null && r.arguments !== undefined ? { arguments: String(r.arguments) } : {}),
    ...(r.arguments_omitted ? { argumentsOmitted: String(r.arguments_omitted) } : {}),
    ...(r.reason ? { reason: String(r.reason) as InvalidJsonCause } : {}),
    errors: parseErrors(r.errors),
    message: String(r.message),
  };
}

/** A stored errors column that is not a JSON array (a row no writer of ours made) reads as none. */
function parseErrors(text: unknown): ValidationError[] {
  try {
    const v: unknown = JSON.parse(typeof text === 'string' ? text : '[]');
    return Array.isArray(v) ? (v as ValidationError[]) : [];
  } catch {
    return [];
  }
}
