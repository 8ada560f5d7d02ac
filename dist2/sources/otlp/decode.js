/**
 * The only code that knows OTLP wire formats. `decodeProtobuf` / `decodeJson` turn an
 * ExportTraceServiceRequest body into `Span`s; `encodeExportResponse` / `encodeStatus` build the
 * response bodies. No I/O, no logging.
 */
export { decodeProtobuf } from './decode-protobuf.js';
export { decodeJson } from './decode-json.js';
export { DEFAULT_DECODE_LIMITS, MAX_REASONS } from './decode-common.js';
export { encodeExportResponse, encodeStatus } from './wire.js';
//# sourceMappingURL=decode.js.map