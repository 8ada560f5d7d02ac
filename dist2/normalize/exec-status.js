import { num, str } from '../util/values.js';
const TEXT_READ = 500;
/**
 * When two signals disagree, the more specific one wins: a refusal says most about the call; a tool
 * that reports its own failure says more than a bare ERROR.
 */
const RANK = { ok: 0, error: 1, tool_error: 2, server_error: 3, client_error: 4 };
/** The more telling of two statuses (commutative and idempotent, so the order signals arrive in does not matter). */
export function worse(a, b) {
    return RANK[b] > RANK[a] ? b : a;
}
/** An HTTP status code's class; undefined below 400 (not a failure) or outside 100–599. */
export function httpStatusClass(code) {
    if (!Number.isInteger(code) || code < 400 || code > 599)
        return undefined;
    if (code === 408 || code === 429)
        return 'server_error';
    return code < 500 ? 'client_error' : 'server_error';
}
/**
 * gRPC status codes (numeric or by name) by the HTTP status the gRPC–HTTP mapping gives them
 * (google.rpc.Code): a bad request is a client error, an unavailable or overloaded server a server
 * error. CANCELLED and UNKNOWN say nothing about whose fault it was.
 */
const GRPC = [
    undefined, // 0 OK
    'error', // 1 CANCELLED
    'error', // 2 UNKNOWN
    'client_error', // 3 INVALID_ARGUMENT
    'server_error', // 4 DEADLINE_EXCEEDED
    'client_error', // 5 NOT_FOUND
    'client_error', // 6 ALREADY_EXISTS
    'client_error', // 7 PERMISSION_DENIED
    'server_error', // 8 RESOURCE_EXHAUSTED
    'client_error', // 9 FAILED_PRECONDITION
    'client_error', // 10 ABORTED
    'client_error', // 11 OUT_OF_RANGE
    'server_error', // 12 UNIMPLEMENTED
    'server_error', // 13 INTERNAL
    'server_error', // 14 UNAVAILABLE
    'server_error', // 15 DATA_LOSS
    'client_error', // 16 UNAUTHENTICATED
];
const GRPC_NAMES = [
    'OK',
    'CANCELLED',
    'UNKNOWN',
    'INVALID_ARGUMENT',
    'DEADLINE_EXCEEDED',
    'NOT_FOUND',
    'ALREADY_EXISTS',
    'PERMISSION_DENIED',
    'RESOURCE_EXHAUSTED',
    'FAILED_PRECONDITION',
    'ABORTED',
    'OUT_OF_RANGE',
    'UNIMPLEMENTED',
    'INTERNAL',
    'UNAVAILABLE',
    'DATA_LOSS',
    'UNAUTHENTICATED',
];
export function grpcStatusClass(code) {
    const n = typeof code === 'number' ? code : GRPC_NAMES.indexOf(code.toUpperCase());
    return Number.isInteger(n) && n >= 0 ? GRPC[n] : undefined;
}
// Linear patterns (no nested quantifiers), over at most TEXT_READ characters.
const CODE_PHRASES = [
    /\bstatus(?:[ _]?code)?\s*[:=]?\s*([1-5]\d\d)\b/i, // axios "…with status code 404", "status: 422", "status_code=500"
    /\bHTTP(?:\/\d(?:\.\d)?)?\s*[:=]?\s*([1-5]\d\d)\b/i, // "HTTP 503", "HTTP/1.1 404", "HTTP: 429"
    /\b([45]\d\d) (?:Client|Server) Error\b/i, // python-requests raise_for_status
    /\b(?:Client|Server) error '([45]\d\d)\b/i, // httpx raise_for_status
];
const TIMEOUT = /time[ds]?[ _-]?out|deadline[ _]exceeded|ETIMEDOUT|ESOCKETTIMEDOUT/i;
const CONNECTION = new RegExp([
    'ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|EPIPE',
    'connection (?:refused|reset|aborted)|service unavailable|bad gateway|socket hang up',
].join('|'), 'i');
/** Pydantic AI: the tool raised ModelRetry (ToolRetryError when recorded on the span): the call was wrong. */
const RETRY_ASKED = /\b(?:ModelRetry|ToolRetryError)\b/;
/** What a free text (an error type, a status message, an exception) says; undefined when nothing. */
export function textStatus(text) {
    if (text === undefined || text === '')
        return undefined;
    const t = text.length > TEXT_READ ? text.slice(0, TEXT_READ) : text;
    // A bare status code ("404", as `error.type` carries it for HTTP clients).
    if (/^\d{3}$/.test(t))
        return httpStatusClass(Number(t));
    for (const re of CODE_PHRASES) {
        const m = re.exec(t);
        const cls = m ? httpStatusClass(Number(m[1])) : undefined;
        if (cls)
            return cls;
    }
    if (RETRY_ASKED.test(t))
        return 'client_error';
    if (TIMEOUT.test(t) || CONNECTION.test(t))
        return 'server_error';
    return undefined;
}
/** The HTTP or gRPC status an attribute map carries, as a class; undefined when none says failure. */
function protocolStatus(a) {
    const http = num(a, 'http.response.status_code') ?? num(a, 'http.status_code');
    if (http !== undefined)
        return httpStatusClass(http);
    const grpc = a['rpc.grpc.status_code'];
    if (typeof grpc === 'number')
        return grpcStatusClass(grpc);
    if (typeof grpc === 'string' && grpc !== '')
        return grpcStatusClass(/^\d+$/.test(grpc) ? Number(grpc) : grpc);
    return undefined;
}
/** The exception events' type and message, read as text. */
function exceptionStatus(span) {
    let out;
    for (const e of span.events) {
        if (e.name !== 'exception')
            continue;
        const s = textStatus(str(e.attributes, 'exception.type')) ?? textStatus(str(e.attributes, 'exception.message'));
        if (s)
            out = out ? worse(out, s) : s;
    }
    return out;
}
/**
 * What MCP instrumentations set when a tool's result says `isError: true`: `error.type` `tool_error`
 * (OpenTelemetry's MCP conventions), `mcp.tool.result.is_error` (Sentry's).
 */
export const TOOL_ERROR_TYPE = 'tool_error';
/**
 * How the span's own operation ended. A span that does not say it failed (status not ERROR, no
 * `error.type`) is `ok` unless its protocol status is a failure (a tool wrapper that sets
 * `http.response.status_code` 404 but leaves the status unset).
 */
export function spanStatus(span) {
    const a = span.attributes;
    const isError = a['mcp.tool.result.is_error'] === true;
    const errorType = str(a, 'error.type') ?? (isError ? TOOL_ERROR_TYPE : undefined);
    const proto = protocolStatus(a);
    const failed = span.statusCode === 2 || errorType !== undefined || proto !== undefined;
    if (!failed)
        return { status: 'ok' };
    const status = proto ??
        (errorType === TOOL_ERROR_TYPE ? 'tool_error' : undefined) ??
        textStatus(errorType) ??
        textStatus(span.statusMessage) ??
        exceptionStatus(span) ??
        'error';
    const what = errorType ?? (span.statusMessage || undefined);
    const out = what === undefined ? { status } : { status, errorType: what };
    const http = proto === undefined ? undefined : (num(a, 'http.response.status_code') ?? num(a, 'http.status_code'));
    if (http !== undefined)
        out.httpStatus = http;
    return out;
}
/**
 * An HTTP or RPC client span (a tool's call to its downstream): kind CLIENT with an HTTP or RPC
 * attribute. Its failure status, or undefined when it did not fail or is no such span.
 */
export function downstreamStatus(span) {
    if (span.kind !== 3 || span.parentSpanId === '')
        return undefined;
    const a = span.attributes;
    const isCall = a['http.request.method'] !== undefined ||
        a['http.method'] !== undefined ||
        a['http.response.status_code'] !== undefined ||
        a['http.status_code'] !== undefined ||
        a['rpc.system'] !== undefined;
    if (!isCall)
        return undefined;
    const s = spanStatus(span).status;
    return s === 'ok' ? undefined : s;
}
//# sourceMappingURL=exec-status.js.map