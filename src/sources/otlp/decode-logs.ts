/**
 * OTLP ExportLogsServiceRequest (opentelemetry/proto/collector/logs/v1, logs/v1/logs.proto), protobuf
 * and JSON, reduced to the GenAI events among the records: a record is one when its `event_name`
 * (field 12; older SDKs: the `event.name` attribute) starts with `gen_ai.`. Every other record is
 * only counted — its body and attributes are skipped by length (protobuf) or never converted (JSON).
 * A GenAI event without a trace and span id names no span and cannot be joined: counted, not kept.
 */
import pb from 'protobufjs/minimal.js';
import type { AttrObject, AttrValue, LogEvent } from '../../model.js';
import {
  DEFAULT_SERVICE,
  MAX_REASONS,
  NO_SCOPE,
  SpanRejected,
  errorMessage,
  newAttrs,
  resolveMaxDepth,
  type DecodeLimits,
  type ScopeId,
} from './decode-common.js';
import {
  arrayField,
  convertAnyValue,
  convertAttributes,
  field,
  isObj,
  Malformed,
  nanosToMs,
  scopeOf,
  serviceName,
} from './decode-json.js';
import {
  checkEnd,
  decodeResourceService,
  decodeScope,
  idHex,
  ldEnd,
  readNanosAsMs,
  readString,
  skipField,
  type FastBuffer,
  type ProtobufCtx,
} from './decode-protobuf.js';
import { decodeAnyValue, decodeKeyValueInto } from './decode-any-value.js';

export type LogsDecodeResult =
  | {
      ok: true;
      events: LogEvent[];
      /** GenAI events without a trace or span id (not joinable to a span). */
      unjoinable: number;
      /** Records that are not GenAI events. */
      other: number;
      /** Records that could not be read (partialSuccess.rejectedLogRecords). */
      rejected: number;
      rejectReasons: string[];
    }
  | { ok: false; message: string };

const EVENT_NAME_ATTR = 'event.name';
const isGenAi = (name: string): boolean => name.startsWith('gen_ai.');

interface Tally {
  events: LogEvent[];
  unjoinable: number;
  other: number;
  rejected: number;
  rejectReasons: string[];
}

const newTally = (): Tally => ({ events: [], unjoinable: 0, other: 0, rejected: 0, rejectReasons: [] });

function reject(t: Tally, err: unknown): void {
  if (!(err instanceof SpanRejected) && !(err instanceof RangeError)) throw err;
  t.rejected++;
  const reason = err instanceof SpanRejected ? err.message : `unreadable log record: ${err.message}`;
  if (t.rejectReasons.length < MAX_REASONS && !t.rejectReasons.includes(reason)) t.rejectReasons.push(reason);
}

function keep(t: Tally, e: LogEvent): void {
  if (e.traceId === '' || e.spanId === '') t.unjoinable++;
  else t.events.push(e);
}

const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

// ---- protobuf ----

export function decodeLogsProtobuf(body: Uint8Array, limits?: DecodeLimits): LogsDecodeResult {
  const b = (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)) as FastBuffer;
  const t = newTally();
  if (b.length === 0) return { ok: true, ...t };
  const r = pb.Reader.create(b);
  const c: ProtobufCtx = { r, b, maxDepth: resolveMaxDepth(limits), nowMs: limits?.nowMs };
  try {
    const end = r.len;
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag === 10) resourceLogs(c, ldEnd(r), t);
      else skipField(r, tag);
    }
  } catch (err) {
    return { ok: false, message: `malformed OTLP protobuf ExportLogsServiceRequest: ${errorMessage(err)}` };
  }
  return { ok: true, ...t };
}

/** Scope logs may precede their resource: they are read once the resource's service is known. */
function resourceLogs(c: ProtobufCtx, end: number, t: Tally): void {
  const r = c.r;
  let service = DEFAULT_SERVICE;
  const scopes: [number, number][] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) service = decodeResourceService(c, ldEnd(r));
    else if (tag === 18) {
      const e = ldEnd(r);
      scopes.push([r.pos, e]);
      r.pos = e;
    } else skipField(r, tag);
  }
  checkEnd(r, end);
  for (const [start, e] of scopes) {
    r.pos = start;
    scopeLogs(c, e, t, service);
  }
  r.pos = end;
}

function scopeLogs(c: ProtobufCtx, end: number, t: Tally, service: string): void {
  const r = c.r;
  let scope: ScopeId = NO_SCOPE;
  const records: [number, number][] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) scope = decodeScope(c, ldEnd(r));
    else if (tag === 18) {
      const e = ldEnd(r);
      records.push([r.pos, e]);
      r.pos = e;
    } else skipField(r, tag);
  }
  checkEnd(r, end);
  for (const [start, e] of records) {
    r.pos = start;
    try {
      const ev = logRecord(c, e, service, scope);
      if (ev) keep(t, ev);
      else t.other++;
    } catch (err) {
      reject(t, err);
    }
    r.pos = e; // a rejected record is skipped by its length
  }
}

/** One LogRecord: its event name first (attributes by position), the rest decoded only for a GenAI event. */
function logRecord(c: ProtobufCtx, end: number, service: string, scope: ScopeId): LogEvent | undefined {
  const r = c.r;
  let name = '';
  let timeMs = 0;
  let observedMs = 0;
  let traceId = '';
  let spanId = '';
  let bodyAt: [number, number] | undefined;
  const attrsAt: [number, number][] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 9:
        timeMs = readNanosAsMs(r);
        break;
      case 89: // observed_time_unix_nano = 11, fixed64
        observedMs = readNanosAsMs(r);
        break;
      case 42: {
        const e = ldEnd(r);
        bodyAt = [r.pos, e];
        r.pos = e;
        break;
      }
      case 50: {
        const e = ldEnd(r);
        attrsAt.push([r.pos, e]);
        r.pos = e;
        break;
      }
      case 74: {
        const e = ldEnd(r);
        traceId = idHex(c, r.pos, e, 16);
        r.pos = e;
        break;
      }
      case 82: {
        const e = ldEnd(r);
        spanId = idHex(c, r.pos, e, 8);
        r.pos = e;
        break;
      }
      case 98:
        name = readString(c);
        break;
      default:
        skipField(r, tag);
    }
  }
  checkEnd(r, end);
  if (name === '') name = attributeEventName(c, attrsAt);
  if (!isGenAi(name)) return undefined;
  const attributes = newAttrs();
  for (const [start, e] of attrsAt) {
    r.pos = start;
    decodeKeyValueInto(c, e, attributes, 1);
  }
  let body: AttrValue = null;
  if (bodyAt) {
    r.pos = bodyAt[0];
    body = decodeAnyValue(c, bodyAt[1], 1);
  }
  return event(traceId, spanId, name, timeMs || observedMs, attributes, body, service, scope);
}

/** The `event.name` attribute, reading keys only (other values are skipped by length). */
function attributeEventName(c: ProtobufCtx, attrsAt: readonly [number, number][]): string {
  const r = c.r;
  for (const [start, end] of attrsAt) {
    r.pos = start;
    let key = '';
    let valueAt: [number, number] | undefined;
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag === 10) key = readString(c);
      else if (tag === 18) {
        const e = ldEnd(r);
        valueAt = [r.pos, e];
        r.pos = e;
      } else skipField(r, tag);
    }
    if (key !== EVENT_NAME_ATTR || !valueAt) continue;
    r.pos = valueAt[0];
    const v = decodeAnyValue(c, valueAt[1], 1);
    return typeof v === 'string' ? v : '';
  }
  return '';
}

function event(
  traceId: string,
  spanId: string,
  name: string,
  timeMs: number,
  attributes: AttrObject,
  body: AttrValue,
  service: string,
  scope: ScopeId,
): LogEvent {
  return {
    traceId: traceId === ZERO_TRACE ? '' : traceId,
    spanId: spanId === ZERO_SPAN ? '' : spanId,
    name,
    timeMs,
    attributes,
    body,
    service,
    scope: scope.name,
    scopeVersion: scope.version,
  };
}

// ---- JSON ----

const HEX_RE = (n: number) => new RegExp(`^[0-9a-fA-F]{${n}}$`);
const TRACE_RE = HEX_RE(32);
const SPAN_RE = HEX_RE(16);

export function decodeLogsJson(body: Uint8Array | string, limits?: DecodeLimits): LogsDecodeResult {
  let text = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString();
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `invalid JSON: ${errorMessage(err)}` };
  }
  if (!isObj(root)) return { ok: false, message: 'OTLP/JSON body must be a JSON object (ExportLogsServiceRequest)' };
  const t = newTally();
  const c = { maxDepth: resolveMaxDepth(limits), nowMs: limits?.nowMs };
  try {
    const rlList = arrayField(root, 'resourceLogs', 'resource_logs', 'resourceLogs');
    for (let i = 0; i < rlList.length; i++) {
      const rl = rlList[i];
      if (!isObj(rl)) throw new Malformed(`resourceLogs[${i}] must be an object`);
      const service = serviceName(rl['resource']);
      const slList = arrayField(rl, 'scopeLogs', 'scope_logs', `resourceLogs[${i}].scopeLogs`);
      for (let j = 0; j < slList.length; j++) {
        const sl = slList[j];
        if (!isObj(sl)) throw new Malformed(`resourceLogs[${i}].scopeLogs[${j}] must be an object`);
        const scope = scopeOf(sl['scope']);
        const where = `resourceLogs[${i}].scopeLogs[${j}].logRecords`;
        for (const lr of arrayField(sl, 'logRecords', 'log_records', where)) {
          try {
            const ev = jsonRecord(c, lr, service, scope);
            if (ev) keep(t, ev);
            else t.other++;
          } catch (err) {
            reject(t, err);
          }
        }
      }
    }
  } catch (err) {
    return { ok: false, message: `malformed OTLP/JSON request: ${errorMessage(err)}` };
  }
  return { ok: true, ...t };
}

function jsonRecord(
  c: { maxDepth: number; nowMs: number | undefined },
  lr: unknown,
  service: string,
  scope: ScopeId,
): LogEvent | undefined {
  if (!isObj(lr)) throw new SpanRejected('a log record must be an object');
  let name = field(lr, 'eventName', 'event_name');
  const list = lr['attributes'];
  if (typeof name !== 'string' || name === '') {
    name = '';
    if (Array.isArray(list)) {
      const kv = list.find((x) => isObj(x) && x['key'] === EVENT_NAME_ATTR);
      const v = isObj(kv) ? convertAnyValue(c, kv['value'], 1) : null;
      if (typeof v === 'string') name = v;
    }
  }
  if (!isGenAi(name as string)) return undefined;
  const traceId = field(lr, 'traceId', 'trace_id');
  const spanId = field(lr, 'spanId', 'span_id');
  const tid = typeof traceId === 'string' && TRACE_RE.test(traceId) ? traceId.toLowerCase() : '';
  const sid = typeof spanId === 'string' && SPAN_RE.test(spanId) ? spanId.toLowerCase() : '';
  const time = nanosToMs(field(lr, 'timeUnixNano', 'time_unix_nano'));
  const observed = nanosToMs(field(lr, 'observedTimeUnixNano', 'observed_time_unix_nano'));
  const attributes = convertAttributes(c, list, 1);
  const body = convertAnyValue(c, lr['body'], 1);
  const timeMs = Number.isFinite(time) && time > 0 ? time : Number.isFinite(observed) ? observed : 0;
  return event(tid, sid, name as string, timeMs, attributes, body, service, scope);
}
