/**
 * Hand-written OTLP/protobuf decoder (opentelemetry-proto v1, ExportTraceServiceRequest) that goes
 * straight from wire bytes to our `Span` objects over protobufjs/minimal's Reader, without
 * intermediate message objects. Every length-delimited field is bounds-checked; nested AnyValues past
 * the depth limit are skipped by length (no recursion) and reject their span.
 */
import pb from 'protobufjs/minimal.js';
import { DEFAULT_SERVICE, NO_SCOPE, SpanRejected, collect, depthReason, errorMessage, newAttrs, newSpan, resolveMaxDepth, spanResult, toSpanKind, toStatusCode, } from './decode-common.js';
import { checkEnd, idHex, ldEnd, readInt64, readNanosAsMs, readString, skipField, } from './protobuf-wire.js';
import { checkSpanTimes } from './span-time.js';
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
// Tags = (field number << 3) | wire type.
// wire types: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32.
export function decodeProtobuf(body, limits) {
    const b = (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    const results = [];
    if (b.length === 0)
        return collect(results);
    const r = pb.Reader.create(b);
    const c = { r, b, maxDepth: resolveMaxDepth(limits), nowMs: limits?.nowMs };
    try {
        const end = r.len;
        while (r.pos < end) {
            const tag = r.uint32();
            if (tag === 10)
                decodeResourceSpans(c, ldEnd(r), results);
            else
                skipField(r, tag);
        }
    }
    catch (err) {
        return { ok: false, message: `malformed OTLP protobuf ExportTraceServiceRequest: ${errorMessage(err)}` };
    }
    return collect(results);
}
/** Sets a field on the spans read since index `first` (resource and scope may follow their spans). */
function patch(results, first, set) {
    for (let i = first; i < results.length; i++) {
        const x = results[i];
        if (x.ok)
            set(x.span);
    }
}
/** Reads a length prefix and returns the end offset of the field, checked against the buffer. */
function decodeResourceSpans(c, end, results) {
    const r = c.r;
    const first = results.length;
    let service = DEFAULT_SERVICE;
    let sawResource = false;
    while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 18) {
            decodeScopeSpans(c, ldEnd(r), results, service);
        }
        else if (tag === 10) {
            service = decodeResourceService(c, ldEnd(r));
            sawResource = true;
        }
        else
            skipField(r, tag);
    }
    checkEnd(r, end);
    // The resource normally precedes the spans; if it came after some, patch them.
    if (sawResource)
        patch(results, first, (span) => (span.service = service));
}
/** Resource → its `service.name` (only that attribute is decoded). */
function decodeResourceService(c, end) {
    const r = c.r;
    let service = DEFAULT_SERVICE;
    while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 10) {
            const kvEnd = ldEnd(r);
            let key = null;
            let value = null;
            while (r.pos < kvEnd) {
                const t = r.uint32();
                if (t === 10)
                    key = readString(c);
                else if (t === 18) {
                    const vEnd = ldEnd(r);
                    if (key === null || key === 'service.name')
                        value = resourceValue(c, vEnd);
                    else
                        r.pos = vEnd;
                }
                else
                    skipField(r, t);
            }
            checkEnd(r, kvEnd);
            if (key === 'service.name' && typeof value === 'string' && value !== '')
                service = value;
        }
        else
            skipField(r, tag);
    }
    checkEnd(r, end);
    return service;
}
/** A resource attribute nested too deeply is ignored (no span is rejected for it). */
function resourceValue(c, end) {
    try {
        return decodeAnyValue(c, end, 1);
    }
    catch (err) {
        if (!(err instanceof SpanRejected))
            throw err;
        c.r.pos = end;
        return null;
    }
}
function decodeScopeSpans(c, end, results, service) {
    const r = c.r;
    const first = results.length;
    let scope = NO_SCOPE;
    let sawScope = false;
    while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 18) {
            const spanEnd = ldEnd(r);
            results.push(spanResult(() => decodeSpan(c, spanEnd, service, scope)));
            r.pos = spanEnd; // a rejected span is skipped by its length
        }
        else if (tag === 10) {
            scope = decodeScope(c, ldEnd(r));
            sawScope = true;
        }
        else
            skipField(r, tag);
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
function decodeScope(c, end) {
    const r = c.r;
    let name = '';
    let version = '';
    while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 10)
            name = readString(c);
        else if (tag === 18)
            version = readString(c);
        else
            skipField(r, tag);
    }
    checkEnd(r, end);
    return { name, version };
}
/** Decodes one Span; throws SpanRejected when it cannot be read. */
function decodeSpan(c, end, service, scope) {
    const r = c.r;
    let traceId = '';
    let traceLen = -1;
    let spanId = '';
    let spanLen = -1;
    let parentSpanId = '';
    let parentLen = 0;
    let name = '';
    let kind = 0;
    let startTimeMs = 0;
    let endTimeMs = 0;
    let statusCode = 0;
    let statusMessage = '';
    const attributes = newAttrs();
    const events = [];
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
                    if (t === 18)
                        statusMessage = readString(c);
                    else if (t === 24) {
                        statusCode = toStatusCode(r.int32());
                    }
                    else
                        skipField(r, t);
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
    if (traceLen !== 16)
        throw new SpanRejected(traceLen < 0 ? 'trace_id missing' : 'trace_id must be 16 bytes');
    if (traceId === ZERO_TRACE)
        throw new SpanRejected('trace_id must not be all zeros');
    if (spanLen !== 8)
        throw new SpanRejected(spanLen < 0 ? 'span_id missing' : 'span_id must be 8 bytes');
    if (spanId === ZERO_SPAN)
        throw new SpanRejected('span_id must not be all zeros');
    if (parentLen !== 0 && parentLen !== 8)
        throw new SpanRejected('parent_span_id must be empty or 8 bytes');
    checkSpanTimes(startTimeMs, endTimeMs, events, c.nowMs);
    return newSpan(traceId, spanId, parentSpanId, name, kind, startTimeMs, endTimeMs, statusCode, statusMessage, attributes, events, service, scope.name, scope.version);
}
function decodeEvent(c, end) {
    const r = c.r;
    let timeMs = 0;
    let name = '';
    const attributes = newAttrs();
    while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 9)
            timeMs = readNanosAsMs(r);
        else if (tag === 18)
            name = readString(c);
        else if (tag === 26)
            decodeKeyValueInto(c, ldEnd(r), attributes, 1);
        else
            skipField(r, tag);
    }
    checkEnd(r, end);
    return { name, timeMs, attributes };
}
/** KeyValue → target[key] = value; `depth` is the nesting level of the value. */
function decodeKeyValueInto(c, end, target, depth) {
    const r = c.r;
    let key = '';
    let value = null;
    while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 10)
            key = readString(c);
        else if (tag === 18)
            value = decodeAnyValue(c, ldEnd(r), depth);
        else
            skipField(r, tag);
    }
    checkEnd(r, end);
    target[key] = value;
}
function decodeAnyValue(c, end, depth) {
    const r = c.r;
    // Rejects the span at once: the caller skips it by its length, no recursion, no scan.
    if (depth > c.maxDepth)
        throw new SpanRejected(depthReason(c.maxDepth));
    let v = null;
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
                const arr = [];
                while (r.pos < e) {
                    const t = r.uint32();
                    if (t === 10)
                        arr.push(decodeAnyValue(c, ldEnd(r), depth + 1));
                    else
                        skipField(r, t);
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
                    if (t === 10)
                        decodeKeyValueInto(c, ldEnd(r), obj, depth + 1);
                    else
                        skipField(r, t);
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
export { checkEnd, decodeAnyValue, decodeKeyValueInto, decodeResourceService, decodeScope, idHex, ldEnd, readNanosAsMs, readString, skipField, };
//# sourceMappingURL=decode-protobuf.js.map