/**
 * Hand-written OTLP/protobuf decoder (opentelemetry-proto v1, ExportTraceServiceRequest) that goes
 * straight from wire bytes to our `Span` objects over protobufjs/minimal's Reader, without
 * intermediate message objects. Every length-delimited field is bounds-checked; nested AnyValues past
 * the depth limit are skipped by length (no recursion) and reject their span.
 */
import pb from 'protobufjs/minimal.js';
import type { AttrValue, Span, SpanEvent, SpanKind, StatusCode } from '../../model.js';
import {
  DEFAULT_SERVICE,
  NO_SCOPE,
  SpanRejected,
  errorMessage,
  newAttrs,
  newSpan,
  resolveMaxDepth,
  SpansRead,
  toSpanKind,
  toStatusCode,
  type DecodeLimits,
  type DecodeResult,
  type ScopeId,
} from './decode-common.js';
import {
  checkEnd,
  idHex,
  ldEnd,
  readNanosAsMs,
  readString,
  readVarint32,
  skipField,
  uniqueIdHex,
  type Ctx,
  type FastBuffer,
} from './protobuf-wire.js';
import { decodeAnyValue, decodeKeyValueInto } from './decode-any-value.js';
import { checkSpanTimes } from './span-time.js';

const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
const NO_EVENTS: SpanEvent[] = Object.freeze([]) as unknown as SpanEvent[];

// Tags = (field number << 3) | wire type.
// wire types: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32.

export function decodeProtobuf(body: Uint8Array, limits?: DecodeLimits): DecodeResult {
  const b = (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)) as FastBuffer;
  const out = new SpansRead();
  if (b.length === 0) return out.result();
  const r = pb.Reader.create(b);
  const c: Ctx = { r, b, maxDepth: resolveMaxDepth(limits), nowMs: limits?.nowMs };
  try {
    const end = r.len;
    while (r.pos < end) {
      const tag = readVarint32(r);
      if (tag === 10) decodeResourceSpans(c, ldEnd(r), out);
      else skipField(r, tag);
    }
  } catch (err) {
    return { ok: false, message: `malformed OTLP protobuf ExportTraceServiceRequest: ${errorMessage(err)}` };
  }
  return out.result();
}

/** One ResourceSpans: its scope groups' spans, with the resource's service name. */
function decodeResourceSpans(c: Ctx, end: number, out: SpansRead): void {
  const r = c.r;
  const first = out.spans.length;
  let service = DEFAULT_SERVICE;
  // Spans read before the resource (it normally comes first) get its service once it is known.
  let before = -1;
  while (r.pos < end) {
    const tag = readVarint32(r);
    if (tag === 18) {
      decodeScopeSpans(c, ldEnd(r), out, service);
    } else if (tag === 10) {
      service = decodeResourceService(c, ldEnd(r));
      before = out.spans.length;
    } else skipField(r, tag);
  }
  checkEnd(r, end);
  for (let i = first; i < before; i++) out.spans[i]!.service = service;
}

/** Resource → its `service.name` (only that attribute is decoded). */
function decodeResourceService(c: Ctx, end: number): string {
  const r = c.r;
  let service = DEFAULT_SERVICE;
  while (r.pos < end) {
    const tag = readVarint32(r);
    if (tag === 10) {
      const kvEnd = ldEnd(r);
      let key: string | null = null;
      let value: AttrValue = null;
      while (r.pos < kvEnd) {
        const t = readVarint32(r);
        if (t === 10) key = readString(c);
        else if (t === 18) {
          const vEnd = ldEnd(r);
          if (key === null || key === 'service.name') value = resourceValue(c, vEnd);
          else r.pos = vEnd;
        } else skipField(r, t);
      }
      checkEnd(r, kvEnd);
      if (key === 'service.name' && typeof value === 'string' && value !== '') service = value;
    } else skipField(r, tag);
  }
  checkEnd(r, end);
  return service;
}

/** A resource attribute nested too deeply is ignored (no span is rejected for it). */
function resourceValue(c: Ctx, end: number): AttrValue {
  try {
    return decodeAnyValue(c, end, 1);
  } catch (err) {
    if (!(err instanceof SpanRejected)) throw err;
    c.r.pos = end;
    return null;
  }
}

function decodeScopeSpans(c: Ctx, end: number, out: SpansRead, service: string): void {
  const r = c.r;
  const first = out.spans.length;
  let scope: ScopeId = NO_SCOPE;
  // Spans read before the scope (it normally comes first) get it once it is known.
  let before = -1;
  while (r.pos < end) {
    const tag = readVarint32(r);
    if (tag === 18) {
      const spanEnd = ldEnd(r);
      // SpansRead.read without a closure per span: this loop runs for every span of every batch.
      try {
        out.spans.push(decodeSpan(c, spanEnd, service, scope));
      } catch (err) {
        if (!(err instanceof SpanRejected)) throw err;
        out.reject(err.reason);
      }
      r.pos = spanEnd; // a rejected span is skipped by its length
    } else if (tag === 10) {
      scope = decodeScope(c, ldEnd(r));
      before = out.spans.length;
    } else skipField(r, tag);
  }
  checkEnd(r, end);
  for (let i = first; i < before; i++) {
    const span = out.spans[i]!;
    span.scope = scope.name;
    span.scopeVersion = scope.version;
  }
}

/** InstrumentationScope: name (1) and version (2); attributes and the rest are skipped. */
function decodeScope(c: Ctx, end: number): ScopeId {
  const r = c.r;
  let name = '';
  let version = '';
  while (r.pos < end) {
    const tag = readVarint32(r);
    if (tag === 10) name = readString(c);
    else if (tag === 18) version = readString(c);
    else skipField(r, tag);
  }
  checkEnd(r, end);
  return { name, version };
}

/** Decodes one Span; throws SpanRejected when it cannot be read. */
function decodeSpan(c: Ctx, end: number, service: string, scope: ScopeId): Span {
  const r = c.r;
  let traceId = '';
  let traceLen = -1;
  let spanId = '';
  let spanLen = -1;
  let parentSpanId = '';
  let parentLen = 0;
  let name = '';
  let kind: SpanKind = 0;
  let startTimeMs = 0;
  let endTimeMs = 0;
  let statusCode: StatusCode = 0;
  let statusMessage = '';
  const attributes = newAttrs();
  // Most spans carry no event: they share one empty list (nothing adds to a decoded span's events).
  let events = NO_EVENTS;
  while (r.pos < end) {
    const tag = readVarint32(r);
    switch (tag) {
      case 10: {
        // trace_id
        const e = ldEnd(r);
        traceLen = e - r.pos;
        traceId = idHex(c, r.pos, e, 16);
        r.pos = e;
        break;
      }
      case 18: {
        // span_id
        const e = ldEnd(r);
        spanLen = e - r.pos;
        spanId = uniqueIdHex(c, r.pos, e, 8);
        r.pos = e;
        break;
      }
      case 34: {
        // parent_span_id
        const e = ldEnd(r);
        parentLen = e - r.pos;
        parentSpanId = idHex(c, r.pos, e, 8);
        r.pos = e;
        break;
      }
      case 42:
        name = readString(c);
        break;
      case 48: {
        kind = toSpanKind(r.uint32());
        break;
      }
      case 57:
        startTimeMs = readNanosAsMs(r);
        break;
      case 65:
        endTimeMs = readNanosAsMs(r);
        break;
      case 74:
        decodeKeyValueInto(c, ldEnd(r), attributes, 1);
        break;
      case 90:
        if (events === NO_EVENTS) events = [];
        events.push(decodeEvent(c, ldEnd(r)));
        break;
      case 122: {
        // status
        const e = ldEnd(r);
        while (r.pos < e) {
          const t = readVarint32(r);
          if (t === 18) statusMessage = readString(c);
          else if (t === 24) {
            statusCode = toStatusCode(r.int32());
          } else skipField(r, t);
        }
        checkEnd(r, e);
        break;
      }
      default:
        // trace_state, flags, dropped counts, links, unknown fields
        skipField(r, tag);
    }
  }
  checkEnd(r, end);
  if (traceLen !== 16) throw new SpanRejected(traceLen < 0 ? 'trace_id missing' : 'trace_id must be 16 bytes');
  if (traceId === ZERO_TRACE) throw new SpanRejected('trace_id must not be all zeros');
  if (spanLen !== 8) throw new SpanRejected(spanLen < 0 ? 'span_id missing' : 'span_id must be 8 bytes');
  if (spanId === ZERO_SPAN) throw new SpanRejected('span_id must not be all zeros');
  if (parentLen !== 0 && parentLen !== 8) throw new SpanRejected('parent_span_id must be empty or 8 bytes');
  checkSpanTimes(startTimeMs, endTimeMs, events, c.nowMs);
  return newSpan(
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
    scope.name,
    scope.version,
  );
}

function decodeEvent(c: Ctx, end: number): SpanEvent {
  const r = c.r;
  let timeMs = 0;
  let name = '';
  const attributes = newAttrs();
  while (r.pos < end) {
    const tag = readVarint32(r);
    if (tag === 9) timeMs = readNanosAsMs(r);
    else if (tag === 18) name = readString(c);
    else if (tag === 26) decodeKeyValueInto(c, ldEnd(r), attributes, 1);
    else skipField(r, tag);
  }
  checkEnd(r, end);
  return { name, timeMs, attributes };
}

/** The wire-level readers the OTLP logs decoder (decode-logs.ts) shares with this one. */
export {
  checkEnd,
  decodeResourceService,
  decodeScope,
  idHex,
  ldEnd,
  readNanosAsMs,
  readString,
  skipField,
  type Ctx as ProtobufCtx,
  type FastBuffer,
};
