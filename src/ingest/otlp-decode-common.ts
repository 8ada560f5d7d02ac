/**
 * Shared pieces of the OTLP decoders (protobuf and JSON): result types, limits, reject bookkeeping.
 */
import type { AttrObject, Span, SpanEvent } from '../model.js';

export interface DecodeLimits {
  /** Maximum nesting of AnyValue levels (an attribute's own value is level 1). Default 32. */
  maxDepth: number;
  /** The receiver's clock: spans ending far after it are rejected (span-time.ts). Absent: range checks only. */
  nowMs?: number;
}

export const DEFAULT_DECODE_LIMITS: Readonly<DecodeLimits> = Object.freeze({ maxDepth: 32 });

/**
 * ok:false = the whole payload is malformed (HTTP 400). Spans that could not be read are skipped and
 * counted in `rejectedSpans`, with up to MAX_REASONS distinct short reasons (HTTP 200 partialSuccess).
 */
export type DecodeResult =
  | { ok: true; spans: Span[]; rejectedSpans: number; rejectReasons: string[] }
  | { ok: false; message: string };

export const MAX_REASONS = 5;

export const DEFAULT_SERVICE = 'unknown_service';

/** Counts rejected spans and keeps the first few distinct reasons. */
export class Rejects {
  count = 0;
  reasons: string[] = [];
  add(reason: string): void {
    this.count++;
    if (this.reasons.length < MAX_REASONS && !this.reasons.includes(reason)) this.reasons.push(reason);
  }
}

export function resolveMaxDepth(limits: DecodeLimits | undefined): number {
  const d = limits?.maxDepth;
  return typeof d === 'number' && d >= 1 ? Math.floor(d) : DEFAULT_DECODE_LIMITS.maxDepth;
}

export function depthReason(maxDepth: number): string {
  return `attribute value nested deeper than ${maxDepth} levels`;
}

/** A fresh null-prototype attribute object. */
export function newAttrs(): AttrObject {
  return Object.create(null) as AttrObject;
}

/** All spans are built with this literal so they share one hidden class. */
export function newSpan(
  traceId: string,
  spanId: string,
  parentSpanId: string,
  name: string,
  kind: number,
  startTimeMs: number,
  endTimeMs: number,
  statusCode: number,
  statusMessage: string,
  attributes: AttrObject,
  events: SpanEvent[],
  service: string,
  scope: string,
): Span {
  return {
    traceId,
    spanId,
    parentSpanId,
    name,
    kind,
    startTimeMs,
    endTimeMs,
    statusCode,
    statusMessage,
    attributes,
    events,
    service,
    scope,
  };
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
