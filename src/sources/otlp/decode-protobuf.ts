/**
 * Hand-written OTLP/protobuf decoder (opentelemetry-proto v1, ExportTraceServiceRequest) that goes
 * straight from wire bytes to our `Span` objects over protobufjs/minimal's Reader, without
 * intermediate message objects. Every length-delimited field is bounds-checked; nested AnyValues past
 * the depth limit are skipped by length (no recursion) and reject their span.
 */
import pb from 'protobufjs/minimal.js';
import type { AttrObject, AttrValue, Span, SpanEvent, SpanKind, StatusCode } from '../../model.js';
import {
  DEFAULT_SERVICE,
  NO_SCOPE,
  SpanRejected,
  collect,
  depthReason,
  errorMessage,
  newAttrs,
  newSpan,
  resolveMaxDepth,
  spanResult,
  toSpanKind,
  toStatusCode,
  type DecodeLimits,
  type DecodeResult,
  type ScopeId,
  type SpanResult,
} from './decode-common.js';
import { checkSpanTimes } from './span-time.js';

type Reader = pb.Reader;

/** Node's Buffer has these native slicers (protobufjs relies on utf8Slice too). */
interface FastBuffer extends Buffer {
  utf8Slice(start: number, end: number): string;
  hexSlice(start: number, end: number): string;
}

/** Decoder state for one request; passed explicitly, no closures. */
interface Ctx {
  r: Reader;
  b: FastBuffer;
  maxDepth: number;
  nowMs: number | undefined;
}

const TWO32 = 4294967296;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

// Tags = (field number << 3) | wire type.
// wire types: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32.

export function decodeProtobuf(body: Uint8Array, limits?: DecodeLimits): DecodeResult {
  const b = (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)) as FastBuffer;
  const results: SpanResult[] = [];
  if (b.length === 0) return collect(results);
  const r = pb.Reader.create(b);
  const c: Ctx = { r, b, maxDepth: resolveMaxDepth(limits), nowMs: limits?.nowMs };
  try {
    const end = r.len;
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag === 10) decodeResourceSpans(c, ldEnd(r), results);
      else skipField(r, tag);
    }
  } catch (err) {
    return { ok: false, message: `malformed OTLP protobuf ExportTraceServiceRequest: ${errorMessage(err)}` };
  }
  return collect(results);
}

/** Sets a field on the spans read since index `first` (resource and scope may follow their spans). */
function patch(results: SpanResult[], first: number, set: (span: Span) => void): void {
  for (let i = first; i < results.length; i++) {
    const x = results[i]!;
    if (x.ok) set(x.span);
  }
}

/** Reads a length prefix and returns the end offset of the field, checked against the buffer. */
function ldEnd(r: Reader): number {
  const len = r.uint32();
  const end = r.pos + len;
  if (end > r.len) throw new RangeError(`length ${len} at offset ${r.pos} runs past the end of the ${r.len}-byte body`);
  return end;
}

function checkEnd(r: Reader, end: number): void {
  if (r.pos !== end) throw new RangeError(`field at offset ${r.pos} overruns its enclosing message`);
}

function skipField(r: Reader, tag: number): void {
  if (tag < 8) throw new RangeError(`invalid field number 0 at offset ${r.pos}`);
  switch (tag & 7) {
    case 0:
      r.skip();
      return;
    case 1:
      r.skip(8);
      return;
    case 2:
      r.skip(r.uint32());
      return;
    case 5:
      r.skip(4);
      return;
    default:
      throw new RangeError(`unsupported wire type ${tag & 7} at offset ${r.pos}`);
  }
}

function readString(c: Ctx): string {
  const r = c.r;
  const end = ldEnd(r);
  const start = r.pos;
  r.pos = end;
  const len = end - start;
  if (len === 0) return '';
  if (len <= STR_CACHE_MAX_LEN) return cachedUtf8(c.b, start, end);
  return len <= LONG_MAX_LEN ? cachedLongUtf8(c.b, start, end) : c.b.utf8Slice(start, end);
}

// Short strings (attribute keys, model names, operation names…) repeat across the spans of a batch
// and across batches. A direct-mapped cache keyed by the bytes replaces a native utf8Slice call
// (~100 ns each) by a hash and a compare, and hands out one string per key, so property stores
// do not re-internalise it.
const STR_CACHE_BITS = 12;
const STR_CACHE_MAX_LEN = 48;
const strCacheLen = new Int32Array(1 << STR_CACHE_BITS).fill(-1);
const strCacheBytes = new Uint8Array((1 << STR_CACHE_BITS) * STR_CACHE_MAX_LEN);
const strCacheStr: string[] = new Array<string>(1 << STR_CACHE_BITS).fill('');

function cachedUtf8(b: FastBuffer, start: number, end: number): string {
  let h = 0x811c9dc5 ^ (end - start);
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  const slot = h >>> (32 - STR_CACHE_BITS);
  const len = end - start;
  let off = slot * STR_CACHE_MAX_LEN;
  if (strCacheLen[slot] === len) {
    let i = start;
    for (let o = off; i < end; i++, o++) if (strCacheBytes[o] !== b[i]) break;
    if (i === end) return strCacheStr[slot]!;
  }
  const s = b.utf8Slice(start, end);
  strCacheLen[slot] = len;
  strCacheStr[slot] = s;
  for (let i = start; i < end; i++, off++) strCacheBytes[off] = b[i]!;
  return s;
}

// Long values that repeat — tool definitions and system instructions, sent unchanged with every
// model request of an agent — are read once per distinct value: a repeat is recognised by a native
// byte compare and handed out as the same string object, so it costs no UTF-8 decode, no garbage,
// and the definition caches downstream (tools/tooldefs.ts, definition-hash.ts) find it without
// hashing or comparing its text again. A value is kept only from its second sighting on (a cheap
// fingerprint of its length and a few bytes is remembered first), so a batch of distinct messages
// pays a fingerprint each, not a copy. Bounded: LONG_SLOTS values of at most LONG_MAX_LEN bytes.
const LONG_BITS = 6;
const LONG_MAX_LEN = 64 * 1024;
const longPrint = new Int32Array(1 << LONG_BITS);
const longBytes: (Buffer | undefined)[] = new Array<Buffer | undefined>(1 << LONG_BITS).fill(undefined);
const longStr: string[] = new Array<string>(1 << LONG_BITS).fill('');
const longUsed = new Uint8Array(1 << LONG_BITS);

function cachedLongUtf8(b: FastBuffer, start: number, end: number): string {
  const len = end - start;
  // Its length and 4 bytes at each quarter and at its end: what tells most distinct values of a
  // length apart (JSON texts share their first bytes).
  let h = 0x811c9dc5 ^ len;
  const q = len >>> 2;
  for (let at = start + q; at < end; at += q) {
    const p = at + 4 > end ? end - 4 : at;
    h = Math.imul(h ^ b[p]!, 0x01000193);
    h = Math.imul(h ^ b[p + 1]!, 0x01000193);
    h = Math.imul(h ^ b[p + 2]!, 0x01000193);
    h = Math.imul(h ^ b[p + 3]!, 0x01000193);
  }
  h |= 1; // 0 marks an empty slot
  const slot = h >>> (32 - LONG_BITS);
  const kept = longBytes[slot];
  if (longPrint[slot] === h) {
    if (kept !== undefined && kept.length === len && b.compare(kept, 0, len, start, end) === 0) {
      longUsed[slot] = 1;
      return longStr[slot]!;
    }
    // Seen once before (or a different value with the same print): keep this one from now on.
    const s = b.utf8Slice(start, end);
    longBytes[slot] = Buffer.from(b.subarray(start, end));
    longStr[slot] = s;
    longUsed[slot] = 0;
    return s;
  }
  // A kept value hit since the last one-off value landed here gets a second chance: distinct
  // messages sharing its slot do not push a definition out batch after batch.
  if (longUsed[slot] === 1) {
    longUsed[slot] = 0;
    return b.utf8Slice(start, end);
  }
  longPrint[slot] = h;
  longBytes[slot] = undefined;
  longStr[slot] = '';
  return b.utf8Slice(start, end);
}

// Same idea for ids: a trace id repeats on every span of the trace, a parent id on every sibling.
const HEX_CACHE_BITS = 10;
const hexCacheLen = new Int32Array(1 << HEX_CACHE_BITS).fill(-1);
const hexCacheBytes = new Uint8Array((1 << HEX_CACHE_BITS) * 16);
const hexCacheStr: string[] = new Array<string>(1 << HEX_CACHE_BITS).fill('');

function cachedHex(b: FastBuffer, start: number, end: number): string {
  let h = 0x811c9dc5 ^ (end - start);
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  const slot = h >>> (32 - HEX_CACHE_BITS);
  const len = end - start;
  let off = slot * 16;
  if (hexCacheLen[slot] === len) {
    let i = start;
    for (let o = off; i < end; i++, o++) if (hexCacheBytes[o] !== b[i]) break;
    if (i === end) return hexCacheStr[slot]!;
  }
  const s = b.hexSlice(start, end);
  hexCacheLen[slot] = len;
  hexCacheStr[slot] = s;
  for (let i = start; i < end; i++, off++) hexCacheBytes[off] = b[i]!;
  return s;
}

/** fixed64 nanoseconds → milliseconds (float). */
function readNanosAsMs(r: Reader): number {
  const lo = r.fixed32();
  const hi = r.fixed32();
  return (hi * TWO32 + lo) / 1e6;
}

/** int64 varint → number (two's complement for negatives; precision beyond 2^53 is lost). */
function readInt64(r: Reader): number {
  const buf = r.buf;
  const len = r.len;
  let pos = r.pos;
  let lo = 0;
  let hi = 0;
  let b = 0;
  for (let i = 0; i < 4; i++) {
    if (pos >= len) throw new RangeError('truncated varint');
    b = buf[pos++]!;
    lo = (lo | ((b & 127) << (i * 7))) >>> 0;
    if (b < 128) {
      r.pos = pos;
      return lo;
    }
  }
  if (pos >= len) throw new RangeError('truncated varint');
  b = buf[pos++]!;
  lo = (lo | ((b & 127) << 28)) >>> 0;
  hi = (b & 127) >> 4;
  if (b >= 128) {
    for (let i = 0; i < 5; i++) {
      if (pos >= len) throw new RangeError('truncated varint');
      b = buf[pos++]!;
      hi = (hi | ((b & 127) << (i * 7 + 3))) >>> 0;
      if (b < 128) break;
    }
    if (b >= 128) throw new RangeError('varint longer than 10 bytes');
  }
  r.pos = pos;
  if (hi & 0x80000000) {
    lo = (~lo + 1) >>> 0;
    hi = ~hi >>> 0;
    if (lo === 0) hi = (hi + 1) >>> 0;
    return -(hi * TWO32 + lo);
  }
  return hi * TWO32 + lo;
}

function decodeResourceSpans(c: Ctx, end: number, results: SpanResult[]): void {
  const r = c.r;
  const first = results.length;
  let service = DEFAULT_SERVICE;
  let sawResource = false;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 18) {
      decodeScopeSpans(c, ldEnd(r), results, service);
    } else if (tag === 10) {
      service = decodeResourceService(c, ldEnd(r));
      sawResource = true;
    } else skipField(r, tag);
  }
  checkEnd(r, end);
  // The resource normally precedes the spans; if it came after some, patch them.
  if (sawResource) patch(results, first, (span) => (span.service = service));
}

/** Resource → its `service.name` (only that attribute is decoded). */
function decodeResourceService(c: Ctx, end: number): string {
  const r = c.r;
  let service = DEFAULT_SERVICE;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) {
      const kvEnd = ldEnd(r);
      let key: string | null = null;
      let value: AttrValue = null;
      while (r.pos < kvEnd) {
        const t = r.uint32();
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

function decodeScopeSpans(c: Ctx, end: number, results: SpanResult[], service: string): void {
  const r = c.r;
  const first = results.length;
  let scope: ScopeId = NO_SCOPE;
  let sawScope = false;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 18) {
      const spanEnd = ldEnd(r);
      results.push(spanResult(() => decodeSpan(c, spanEnd, service, scope)));
      r.pos = spanEnd; // a rejected span is skipped by its length
    } else if (tag === 10) {
      scope = decodeScope(c, ldEnd(r));
      sawScope = true;
    } else skipField(r, tag);
  }
  checkEnd(r, end);
  if (sawScope) {
    patch(results, first, (span) => {
      span.scope = scope.name;
      span.scopeVersion = scope.version;
    });
  }
}

/** InstrumentationScope: name (1) and version (2); attributes and the rest are skipped. */
function decodeScope(c: Ctx, end: number): ScopeId {
  const r = c.r;
  let name = '';
  let version = '';
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) name = readString(c);
    else if (tag === 18) version = readString(c);
    else skipField(r, tag);
  }
  checkEnd(r, end);
  return { name, version };
}

/** Hex of an id whose length is as expected, else ''. */
function idHex(c: Ctx, start: number, end: number, want: number): string {
  return end - start === want ? cachedHex(c.b, start, end) : '';
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
  const events: SpanEvent[] = [];
  while (r.pos < end) {
    const tag = r.uint32();
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
        spanId = idHex(c, r.pos, e, 8);
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
        events.push(decodeEvent(c, ldEnd(r)));
        break;
      case 122: {
        // status
        const e = ldEnd(r);
        while (r.pos < e) {
          const t = r.uint32();
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
    const tag = r.uint32();
    if (tag === 9) timeMs = readNanosAsMs(r);
    else if (tag === 18) name = readString(c);
    else if (tag === 26) decodeKeyValueInto(c, ldEnd(r), attributes, 1);
    else skipField(r, tag);
  }
  checkEnd(r, end);
  return { name, timeMs, attributes };
}

/** KeyValue → target[key] = value; `depth` is the nesting level of the value. */
function decodeKeyValueInto(c: Ctx, end: number, target: AttrObject, depth: number): void {
  const r = c.r;
  let key = '';
  let value: AttrValue = null;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) key = readString(c);
    else if (tag === 18) value = decodeAnyValue(c, ldEnd(r), depth);
    else skipField(r, tag);
  }
  checkEnd(r, end);
  target[key] = value;
}

function decodeAnyValue(c: Ctx, end: number, depth: number): AttrValue {
  const r = c.r;
  // Rejects the span at once: the caller skips it by its length, no recursion, no scan.
  if (depth > c.maxDepth) throw new SpanRejected(depthReason(c.maxDepth));
  let v: AttrValue = null;
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10:
        v = readString(c);
        break;
      case 16:
        v = r.bool();
        break;
      case 24:
        v = readInt64(r);
        break;
      case 33:
        v = r.double();
        break;
      case 42: {
        // array_value: ArrayValue { repeated AnyValue values = 1 }
        const e = ldEnd(r);
        const arr: AttrValue[] = [];
        while (r.pos < e) {
          const t = r.uint32();
          if (t === 10) arr.push(decodeAnyValue(c, ldEnd(r), depth + 1));
          else skipField(r, t);
        }
        checkEnd(r, e);
        v = arr;
        break;
      }
      case 50: {
        // kvlist_value: KeyValueList { repeated KeyValue values = 1 }
        const e = ldEnd(r);
        const obj = newAttrs();
        while (r.pos < e) {
          const t = r.uint32();
          if (t === 10) decodeKeyValueInto(c, ldEnd(r), obj, depth + 1);
          else skipField(r, t);
        }
        checkEnd(r, e);
        v = obj;
        break;
      }
      case 58: {
        // bytes_value: copied so it does not pin the request body
        const e = ldEnd(r);
        v = new Uint8Array(c.b.subarray(r.pos, e));
        r.pos = e;
        break;
      }
      default:
        skipField(r, tag);
    }
  }
  checkEnd(r, end);
  return v;
}

/** The wire-level readers the OTLP logs decoder (decode-logs.ts) shares with this one. */
export {
  checkEnd,
  decodeAnyValue,
  decodeKeyValueInto,
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
