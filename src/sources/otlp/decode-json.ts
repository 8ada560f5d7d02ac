/**
 * OTLP/JSON decoder (ExportTraceServiceRequest in the proto3 JSON mapping, with the OTLP deviations:
 * trace/span ids are hex, enums are integers). lowerCamelCase keys, snake_case accepted too; unknown
 * fields ignored. The AnyValue converter is depth-capped, so deep nesting never recurses far.
 */
import type { AttrObject, AttrValue, Span, SpanEvent, StatusCode } from '../../model.js';
import {
  DEFAULT_SERVICE,
  SpanRejected,
  depthReason,
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
import { checkSpanTimes } from './span-time.js';

type Obj = Record<string, unknown>;

interface Ctx {
  maxDepth: number;
  nowMs: number | undefined;
}

class Malformed extends Error {}

const TRACE_ID_RE = /^[0-9a-fA-F]{32}$/;
const SPAN_ID_RE = /^[0-9a-fA-F]{16}$/;
const UINT_RE = /^\d+$/;
const INT_RE = /^-?\d+$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

const KIND_NAMES: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
const STATUS_NAMES: Record<string, number> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};

const R_TRACE_ID = 'traceId must be 32 hex characters (OTLP/JSON uses hex, not base64)';
const R_SPAN_ID = 'spanId must be 16 hex characters (OTLP/JSON uses hex, not base64)';
const R_PARENT_ID = 'parentSpanId must be empty or 16 hex characters (OTLP/JSON uses hex, not base64)';

export function decodeJson(body: Uint8Array | string, limits?: DecodeLimits): DecodeResult {
  let text: string;
  if (typeof body === 'string') text = body;
  else text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `invalid JSON: ${errorMessage(err)}` };
  }
  if (!isObj(root)) return { ok: false, message: 'OTLP/JSON body must be a JSON object (ExportTraceServiceRequest)' };
  const out = new SpansRead();
  const c: Ctx = { maxDepth: resolveMaxDepth(limits), nowMs: limits?.nowMs };
  try {
    const rsList = arrayField(root, 'resourceSpans', 'resource_spans', 'resourceSpans');
    for (let i = 0; i < rsList.length; i++) {
      const rs = rsList[i];
      if (!isObj(rs)) throw new Malformed(`resourceSpans[${i}] must be an object`);
      const service = serviceName(rs['resource']);
      const ssList = arrayField(rs, 'scopeSpans', 'scope_spans', `resourceSpans[${i}].scopeSpans`);
      for (let j = 0; j < ssList.length; j++) {
        const ss = ssList[j];
        if (!isObj(ss)) throw new Malformed(`resourceSpans[${i}].scopeSpans[${j}] must be an object`);
        const scope = scopeOf(ss['scope']);
        const spanList = arrayField(ss, 'spans', 'spans', `resourceSpans[${i}].scopeSpans[${j}].spans`);
        for (const sp of spanList) out.read(() => convertSpan(c, sp, service, scope));
      }
    }
  } catch (err) {
    if (err instanceof Malformed) return { ok: false, message: `malformed OTLP/JSON request: ${err.message}` };
    return { ok: false, message: `malformed OTLP/JSON request: ${errorMessage(err)}` };
  }
  return out.result();
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A repeated field of a structural message: absent/null → [], non-array → whole payload malformed. */
function arrayField(o: Obj, camel: string, snake: string, where: string): unknown[] {
  let v = o[camel];
  if (v === undefined) v = o[snake];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Malformed(`${where} must be an array`);
  return v;
}

/** An InstrumentationScope's name and version; missing or mistyped fields read as ''. */
function scopeOf(scope: unknown): ScopeId {
  return {
    name: isObj(scope) && typeof scope['name'] === 'string' ? scope['name'] : '',
    version: isObj(scope) && typeof scope['version'] === 'string' ? scope['version'] : '',
  };
}

function serviceName(resource: unknown): string {
  if (!isObj(resource)) return DEFAULT_SERVICE;
  const attrs = resource['attributes'];
  if (!Array.isArray(attrs)) return DEFAULT_SERVICE;
  let service = DEFAULT_SERVICE;
  for (const kv of attrs) {
    if (isObj(kv) && kv['key'] === 'service.name') {
      const v = kv['value'];
      if (isObj(v)) {
        const s = v['stringValue'] ?? v['string_value'];
        if (typeof s === 'string' && s !== '') service = s;
      }
    }
  }
  return service;
}

function field(o: Obj, camel: string, snake: string): unknown {
  const v = o[camel];
  return v === undefined ? o[snake] : v;
}

/** int64 nanoseconds (decimal string or number) → ms; NaN when invalid, 0 when absent. */
function nanosToMs(v: unknown): number {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v / 1e6 : NaN;
  // Whole milliseconds and the rest apart: the nanoseconds as one double are past 2^53 and not exact.
  if (typeof v === 'string')
    return !UINT_RE.test(v)
      ? NaN
      : v.length <= 6
        ? Number(v) / 1e6
        : Number(v.slice(0, -6)) + Number(v.slice(-6)) / 1e6;
  if (v === undefined || v === null) return 0;
  return NaN;
}

function enumValue(v: unknown, names: Record<string, number>, max: number): number {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v <= max ? v : 0;
  if (typeof v === 'string') {
    const n = names[v];
    if (n !== undefined) return n;
    if (UINT_RE.test(v)) {
      const x = Number(v);
      return x <= max ? x : 0;
    }
  }
  return 0;
}

/** One span; throws SpanRejected when it cannot be read. */
function convertSpan(c: Ctx, sp: unknown, service: string, scope: ScopeId): Span {
  if (!isObj(sp)) throw new SpanRejected('span must be a JSON object');
  const rawTrace = field(sp, 'traceId', 'trace_id');
  if (typeof rawTrace !== 'string' || !TRACE_ID_RE.test(rawTrace)) {
    throw new SpanRejected(R_TRACE_ID);
  }
  const traceId = rawTrace.toLowerCase();
  if (traceId === ZERO_TRACE) {
    throw new SpanRejected('traceId must not be all zeros');
  }
  const rawSpan = field(sp, 'spanId', 'span_id');
  if (typeof rawSpan !== 'string' || !SPAN_ID_RE.test(rawSpan)) {
    throw new SpanRejected(R_SPAN_ID);
  }
  const spanId = rawSpan.toLowerCase();
  if (spanId === ZERO_SPAN) {
    throw new SpanRejected('spanId must not be all zeros');
  }
  const rawParent = field(sp, 'parentSpanId', 'parent_span_id');
  let parentSpanId = '';
  if (rawParent !== undefined && rawParent !== null && rawParent !== '') {
    if (typeof rawParent !== 'string' || !SPAN_ID_RE.test(rawParent)) {
      throw new SpanRejected(R_PARENT_ID);
    }
    parentSpanId = rawParent.toLowerCase();
  }
  const rawName = sp['name'];
  const name = typeof rawName === 'string' ? rawName : '';
  const kind = toSpanKind(enumValue(sp['kind'], KIND_NAMES, 5));
  const startTimeMs = nanosToMs(field(sp, 'startTimeUnixNano', 'start_time_unix_nano'));
  const endTimeMs = nanosToMs(field(sp, 'endTimeUnixNano', 'end_time_unix_nano'));
  if (Number.isNaN(startTimeMs) || Number.isNaN(endTimeMs)) {
    throw new SpanRejected('startTimeUnixNano/endTimeUnixNano must be unsigned integers (decimal string or number)');
  }
  let statusCode: StatusCode = 0;
  let statusMessage = '';
  const status = sp['status'];
  if (isObj(status)) {
    statusCode = toStatusCode(enumValue(status['code'], STATUS_NAMES, 2));
    const m = status['message'];
    if (typeof m === 'string') statusMessage = m;
  }
  const attributes = convertAttributes(c, sp['attributes'], 1);
  const events: SpanEvent[] = [];
  const rawEvents = sp['events'];
  if (Array.isArray(rawEvents)) {
    for (const ev of rawEvents) {
      if (!isObj(ev)) {
        throw new SpanRejected('span event must be a JSON object');
      }
      const timeMs = nanosToMs(field(ev, 'timeUnixNano', 'time_unix_nano'));
      if (Number.isNaN(timeMs)) {
        throw new SpanRejected('event timeUnixNano must be an unsigned integer (decimal string or number)');
      }
      const evName = ev['name'];
      const evAttrs = convertAttributes(c, ev['attributes'], 1);
      events.push({ name: typeof evName === 'string' ? evName : '', timeMs, attributes: evAttrs });
    }
  } else if (rawEvents !== undefined && rawEvents !== null) {
    throw new SpanRejected('span events must be an array');
  }
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

/** repeated KeyValue → null-prototype object; `depth` is the nesting level of the values. */
function convertAttributes(c: Ctx, list: unknown, depth: number): AttrObject {
  const out = newAttrs();
  if (list === undefined || list === null) return out;
  if (!Array.isArray(list)) {
    throw new SpanRejected('attributes must be an array of {key, value}');
  }
  for (let i = 0; i < list.length; i++) {
    const kv = list[i];
    if (!isObj(kv) || typeof kv['key'] !== 'string') {
      throw new SpanRejected('attributes must be an array of {key, value}');
    }
    out[kv['key']] = convertAnyValue(c, kv['value'], depth);
  }
  return out;
}

function convertAnyValue(c: Ctx, v: unknown, depth: number): AttrValue {
  if (depth > c.maxDepth) {
    throw new SpanRejected(depthReason(c.maxDepth));
  }
  if (v === undefined || v === null) return null;
  if (!isObj(v)) {
    throw new SpanRejected('attribute value must be an AnyValue object');
  }
  const s = v['stringValue'];
  if (typeof s === 'string') return s;
  for (const k in v) {
    const x = v[k];
    switch (k) {
      case 'stringValue':
      case 'string_value':
        if (typeof x === 'string') return x;
        break;
      case 'boolValue':
      case 'bool_value':
        if (typeof x === 'boolean') return x;
        break;
      case 'intValue':
      case 'int_value':
        if (typeof x === 'number' && Number.isInteger(x)) return x;
        if (typeof x === 'string' && INT_RE.test(x)) return Number(x);
        break;
      case 'doubleValue':
      case 'double_value':
        if (typeof x === 'number') return x;
        if (typeof x === 'string') {
          const d = Number(x);
          if (!Number.isNaN(d) || x === 'NaN') return d;
        }
        break;
      case 'arrayValue':
      case 'array_value': {
        if (!isObj(x)) break;
        const vals = x['values'];
        if (vals === undefined || vals === null) return [];
        if (!Array.isArray(vals)) break;
        const out: AttrValue[] = new Array<AttrValue>(vals.length);
        for (let i = 0; i < vals.length; i++) {
          out[i] = convertAnyValue(c, vals[i], depth + 1);
        }
        return out;
      }
      case 'kvlistValue':
      case 'kvlist_value': {
        if (!isObj(x)) break;
        return convertAttributes(c, x['values'], depth + 1);
      }
      case 'bytesValue':
      case 'bytes_value':
        if (typeof x === 'string') return new Uint8Array(Buffer.from(x, 'base64'));
        break;
      default:
        continue; // unknown field: ignored
    }
    throw new SpanRejected(`invalid AnyValue ${k}`);
  }
  return null;
}

/** The converters the OTLP logs decoder (decode-logs.ts) shares with this one. */
export { arrayField, convertAnyValue, convertAttributes, field, isObj, Malformed, nanosToMs, scopeOf, serviceName };
