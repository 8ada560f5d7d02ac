/**
 * OTLP/HTTP response bodies: ExportTraceServiceResponse and google.rpc.Status, in protobuf or JSON.
 */
import pb from 'protobufjs/minimal.js';
function toBuffer(u8) {
    return Buffer.isBuffer(u8) ? u8 : Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
}
/**
 * ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1 }, with
 * ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2 }.
 * Without `partial` the message is empty (protobuf: zero bytes, JSON: `{}`). In JSON, rejectedSpans is
 * a decimal string (proto3 JSON mapping of int64); OTLP clients accept strings and numbers.
 */
export function encodeExportResponse(format, partial) {
    if (format === 'json') {
        if (!partial)
            return Buffer.from('{}');
        return Buffer.from(JSON.stringify({
            partialSuccess: {
                rejectedSpans: String(Math.max(0, Math.trunc(partial.rejectedSpans))),
                errorMessage: partial.errorMessage,
            },
        }));
    }
    const w = pb.Writer.create();
    if (partial) {
        w.uint32((1 << 3) | 2).fork();
        const n = Math.max(0, Math.trunc(partial.rejectedSpans));
        if (n !== 0)
            w.uint32((1 << 3) | 0).int64(n);
        if (partial.errorMessage !== '')
            w.uint32((2 << 3) | 2).string(partial.errorMessage);
        w.ldelim();
    }
    return toBuffer(w.finish());
}
/** google.rpc.Status { int32 code = 1; string message = 2; repeated google.protobuf.Any details = 3 } (no details). */
export function encodeStatus(format, code, message) {
    if (format === 'json')
        return Buffer.from(JSON.stringify({ code, message }));
    const w = pb.Writer.create();
    if (code !== 0)
        w.uint32((1 << 3) | 0).int32(code);
    if (message !== '')
        w.uint32((2 << 3) | 2).string(message);
    return toBuffer(w.finish());
}
//# sourceMappingURL=wire.js.map