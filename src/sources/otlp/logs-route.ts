/**
 * POST /v1/logs per the OTLP/HTTP specification, beside /v1/traces and registered by it (route.ts):
 * the same content types, gzip, body limit, `ingest` scope and 401/403 answers, load shedding, 503 +
 * Retry-After while busy or when the store refuses, 400 for what a retry cannot fix, and records a
 * token may not write rejected through partialSuccess (`rejectedLogRecords`). GenAI events among the
 * records (decode-logs.ts) go to the pipeline, joined to their spans; every other record is counted
 * and dropped. 200 only after the batch's calls are durably recorded.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from '../../auth/hook.js';
import type { LogEvent } from '../../model.js';
import { BatchCancelled, BatchUnprocessable } from '../../pipeline/ports.js';
import { isUnstorable } from '../../store/unstorable.js';
import type { BodyBytes } from './body.js';
import { preflight } from './cors.js';
import { encodeExportResponse } from './decode.js';
import { decodeLogsJson, decodeLogsProtobuf } from './decode-logs.js';
import { CODE, CONTENT_TYPE, type Format, type Intake, type OtlpRouteOptions } from './intake.js';

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

export function otlpLogsRoute(app: FastifyInstance, opts: OtlpRouteOptions, intake: Intake): void {
  const { deny, fail, rejected, clientGone, skipGone } = intake;
  if (opts.cors.enabled) app.options('/v1/logs', { config: { auth: 'open' } }, preflight(opts.cors, 'POST'));

  app.post('/v1/logs', { config: { auth: 'ingest', cors: true, deny } }, intake.handler(record));

  /** Decodes a log batch whose body is in and records its GenAI events. */
  async function record(request: FastifyRequest, reply: FastifyReply, format: Format, body: BodyBytes) {
    if (clientGone(request)) return skipGone(reply);
    const limits = { maxDepth: opts.maxAttributeDepth, nowMs: opts.now() };
    const decoded =
      format === 'protobuf' ? decodeLogsProtobuf(body.take(), limits) : decodeLogsJson(body.take(), limits);
    if (!decoded.ok) return fail(reply, format, 400, 'malformed', CODE.INVALID_ARGUMENT, decoded.message);

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
        if (err instanceof BatchUnprocessable) {
          // Deterministic: a 503 would have the exporter resend it, and every record after it, forever.
          request.log.error({ err }, 'log batch could not be processed; answered 500 (not retried)');
          const message = 'toolwatch could not process the batch; resending it would fail the same way';
          return fail(reply, format, 500, 'unprocessable', CODE.INTERNAL, message);
        }
        if (isUnstorable(err)) {
          request.log.warn({ err }, 'log batch refused by the store as data it cannot keep; answered 400');
          const message = `the batch holds data the store cannot keep: ${(err as Error).message}`;
          return fail(reply, format, 400, 'unstorable', CODE.INVALID_ARGUMENT, message);
        }
        request.log.error({ err }, 'log batch could not be recorded; asked the client to retry');
        reply.header('retry-after', String(opts.retryAfterSeconds));
        const message = 'the batch could not be recorded; retry after the given delay';
        return fail(reply, format, 503, 'unavailable', CODE.UNAVAILABLE, message);
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
}
