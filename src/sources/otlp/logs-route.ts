/**
 * POST /v1/logs per the OTLP/HTTP specification, beside /v1/traces and registered by it (route.ts):
 * the same content types, gzip, body limit, `ingest` scope and 401/403 answers, load shedding, 503 +
 * Retry-After while busy or when the store refuses, 400 for what a retry cannot fix, and records a
 * token may not write rejected through partialSuccess (`rejectedLogRecords`). GenAI events among the
 * records (decode-logs.ts) go to the pipeline, joined to their spans; every other record is counted
 * and dropped. 200 only after the batch's calls are durably recorded.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalOf, type DenyResponder } from '../../auth/hook.js';
import type { LogEvent } from '../../model.js';
import type { IngestRejectReason } from '../../metrics/registry.js';
import { BatchCancelled } from '../../pipeline/pipeline.js';
import { isUnstorable } from '../../store/unstorable.js';
import { readBody } from './body.js';
import { preflight } from './cors.js';
import { encodeExportResponse, encodeStatus } from './decode.js';
import { decodeLogsJson, decodeLogsProtobuf } from './decode-logs.js';
import type { LoadShedder } from './load-shedder.js';
import { formatOf, type OtlpRouteOptions } from './route.js';

type Format = 'protobuf' | 'json';
const CONTENT_TYPE: Record<Format, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };
// google.rpc.Code values carried in the Status body.
const INVALID_ARGUMENT = 3;
const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;
const MAX_NAMED_SERVICES = 5;

interface Partial {
  rejected: number;
  message: string;
}

/** ExportLogsServiceResponse: protobuf has the traces response's field numbers; JSON names the count rejectedLogRecords. */
function exportResponse(format: Format, partial: Partial | undefined): Buffer {
  if (format === 'protobuf')
    return encodeExportResponse(
      'protobuf',
      partial && { rejectedSpans: partial.rejected, errorMessage: partial.message },
    );
  if (!partial) return Buffer.from('{}');
  return Buffer.from(
    JSON.stringify({ partialSuccess: { rejectedLogRecords: String(partial.rejected), errorMessage: partial.message } }),
  );
}

export function otlpLogsRoute(
  app: FastifyInstance,
  opts: OtlpRouteOptions,
  deny: DenyResponder,
  shedder: LoadShedder | undefined,
): void {
  if (opts.cors.enabled) app.options('/v1/logs', { config: { auth: 'open' } }, preflight(opts.cors, 'POST'));

  app.post('/v1/logs', { config: { auth: 'ingest', cors: true, deny } }, async (request, reply) => {
    if (!shedder) return handle(request, reply);
    shedder.inflight++;
    try {
      return await handle(request, reply);
    } finally {
      shedder.inflight--;
    }
  });

  const clientGone = (request: FastifyRequest) => request.raw.socket?.destroyed === true;

  async function handle(request: FastifyRequest, reply: FastifyReply) {
    const format = formatOf(request.headers['content-type']);
    if (!format) {
      request.raw.resume();
      const got = request.headers['content-type'] ?? 'none';
      const message = `Content-Type must be application/x-protobuf or application/json, got ${got}`;
      return fail(reply, 'json', 415, 'unsupported_media_type', INVALID_ARGUMENT, message);
    }
    const shed = shedder?.shed();
    if (shed || opts.isDraining() || opts.store.pendingWrites() >= opts.maxPendingBatches) {
      request.raw.resume();
      reply.header('retry-after', String(opts.retryAfterSeconds));
      const why = shed
        ? `overloaded (${shed === 'inflight' ? 'too many batches in flight' : 'event loop delay'})`
        : 'busy';
      return fail(
        reply,
        format,
        503,
        shed ? 'overloaded' : 'unavailable',
        UNAVAILABLE,
        `toolwatch is ${why}; retry later`,
      );
    }
    const body = await readBody(request.raw, opts.maxBodyBytes);
    if (!body.ok) {
      if (body.status === 413) reply.header('connection', 'close');
      request.raw.resume();
      const code = body.status === 413 ? RESOURCE_EXHAUSTED : INVALID_ARGUMENT;
      return fail(reply, format, body.status, body.reason, code, body.message);
    }
    if (clientGone(request)) return skipGone(reply);
    const limits = { maxDepth: opts.maxAttributeDepth, nowMs: opts.now() };
    const decoded = format === 'protobuf' ? decodeLogsProtobuf(body.body, limits) : decodeLogsJson(body.body, limits);
    if (!decoded.ok) return fail(reply, format, 400, 'malformed', INVALID_ARGUMENT, decoded.message);

    const view = principalOf(request).view;
    let events: LogEvent[] = decoded.events;
    const forbidden = new Set<string>();
    let forbiddenCount = 0;
    if (view.globs) {
      events = decoded.events.filter(
        (e) => view.sees(e.service) || (forbidden.add(e.service), forbiddenCount++, false),
      );
    }
    if (events.length > 0) {
      try {
        const sender = { writer: view.globs ? view : undefined, token: principalOf(request).name };
        await opts.pipeline.ingestLogEvents(events, () => clientGone(request), sender);
      } catch (err) {
        if (err instanceof BatchCancelled) return skipGone(reply);
        if (isUnstorable(err)) {
          request.log.warn({ err }, 'log batch refused by the store as data it cannot keep; answered 400');
          const message = `the batch holds data the store cannot keep: ${(err as Error).message}`;
          return fail(reply, format, 400, 'unstorable', INVALID_ARGUMENT, message);
        }
        request.log.error({ err }, 'log batch could not be recorded; asked the client to retry');
        reply.header('retry-after', String(opts.retryAfterSeconds));
        const message = 'the batch could not be recorded; retry after the given delay';
        return fail(reply, format, 503, 'unavailable', UNAVAILABLE, message);
      }
    }
    const kinds = opts.metrics.logRecordsReceived;
    if (events.length > 0) kinds.inc({ kind: 'genai_event' }, events.length);
    if (decoded.unjoinable > 0) kinds.inc({ kind: 'genai_without_span' }, decoded.unjoinable);
    if (decoded.other > 0) kinds.inc({ kind: 'other' }, decoded.other);

    let partial: Partial | undefined;
    if (decoded.rejected > 0) {
      rejected('unreadable_log_record', decoded.rejected);
      partial = { rejected: decoded.rejected, message: decoded.rejectReasons.join('; ') };
    }
    if (forbiddenCount > 0) {
      rejected('forbidden_service', forbiddenCount);
      const names = [...forbidden].slice(0, MAX_NAMED_SERVICES).join(', ');
      const more = forbidden.size > MAX_NAMED_SERVICES ? ` and ${forbidden.size - MAX_NAMED_SERVICES} more` : '';
      const message = `${forbiddenCount} log records of services this token may not write: ${names}${more}`;
      partial = {
        rejected: (partial?.rejected ?? 0) + forbiddenCount,
        message: partial ? `${partial.message}; ${message}` : message,
      };
    }
    return reply.code(200).type(CONTENT_TYPE[format]).send(exportResponse(format, partial));
  }

  function skipGone(reply: FastifyReply) {
    rejected('client_gone');
    return reply.code(499).send();
  }

  function rejected(reason: IngestRejectReason, n = 1) {
    opts.metrics.ingestRejected.inc({ reason }, n);
  }

  function fail(
    reply: FastifyReply,
    format: Format,
    status: number,
    reason: IngestRejectReason,
    code: number,
    message: string,
  ) {
    rejected(reason);
    return reply
      .code(status)
      .type(CONTENT_TYPE[format])
      .send(encodeStatus(format, code, message));
  }
}
