/**
 * Shared pieces of the OTLP decoders (protobuf and JSON): result types, limits, reject bookkeeping.
 */
import {
  newAttrObject,
  type AttrObject,
  type Span,
  type SpanEvent,
  type SpanKind,
  type StatusCode,
} from '../../model.js';

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

/**
 * Thrown inside one span's decoding (however deep: an attribute nested too far) and caught at that
 * span's boundary, where it becomes the span's result. Never escapes a decoder.
 */
export class SpanRejected extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * A request's spans as they are read: the read ones in order, the rejected ones counted with the
 * first few distinct reasons (the rest of the request is unaffected). One per request, no object
 * per span beside the span itself.
 */
export class SpansRead {
  readonly spans: Span[] = [];
  private rejected = 0;
  private readonly reasons: string[] = [];

  /** Runs one span's decoder: its span is kept, or its rejection (SpanRejected) counted. */
  read(decode: () => Span): void {
    try {
      this.spans.push(decode());
    } catch (err) {
      if (!(err instanceof SpanRejected)) throw err;
      this.reject(err.reason);
    }
  }

  reject(reason: string): void {
    this.rejected++;
    if (this.reasons.length < MAX_REASONS && !this.reasons.includes(reason)) this.reasons.push(reason);
  }

  result(): Extract<DecodeResult, { ok: true }> {
    return { ok: true, spans: this.spans, rejectedSpans: this.rejected, rejectReasons: this.reasons };
  }
}

export function toSpanKind(n: number): SpanKind {
  return (Number.isInteger(n) && n >= 0 && n <= 5 ? n : 0) as SpanKind;
}

export function toStatusCode(n: number): StatusCode {
  return (Number.isInteger(n) && n >= 0 && n <= 2 ? n : 0) as StatusCode;
}

export function resolveMaxDepth(limits: DecodeLimits | undefined): number {
  const d = limits?.maxDepth;
  return typeof d === 'number' && d >= 1 ? Math.floor(d) : DEFAULT_DECODE_LIMITS.maxDepth;
}

export function depthReason(maxDepth: number): string {
  return `attribute value nested deeper than ${maxDepth} levels`;
}

/** Instrumentation scope of a ScopeSpans group: name and version, '' when absent. */
export interface ScopeId {
  name: string;
  version: string;
}

export const NO_SCOPE: Readonly<ScopeId> = Object.freeze({ name: '', version: '' });

/** A fresh attribute object (model.ts newAttrObject: no inherited keys, a fast object). */
export const newAttrs: () => AttrObject = newAttrObject;

/** All spans are built with this literal so they share one hidden class. */
export function newSpan(
  traceId: string,
  spanId: string,
  parentSpanId: string,
  name: string,
  kind: SpanKind,
  startTimeMs: number,
  endTimeMs: number,
  statusCode: StatusCode,
  statusMessage: string,
  attributes: AttrObject,
  events: SpanEvent[],
  service: string,
  scope: string,
  scopeVersion: string,
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
    scopeVersion,
  };
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
