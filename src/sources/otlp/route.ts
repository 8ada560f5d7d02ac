/**
 * POST /v1/traces per the OTLP/HTTP specification: protobuf or JSON, optionally gzipped; the
 * answer in the request's format; 200 only after the batch is durably recorded; 400/413/415 for
 * what a retry cannot fix; 503 + Retry-After for what it can (the store away or busy, overload) and
 * for nothing else; 500, which OTLP clients do not retry, for a batch toolwatch itself failed to
 * process (it would fail again on every resend). Needs the `ingest` scope
 * (401/403 answered as a google.rpc.Status in the request's format); a token restricted to some
 * services has the spans of other services rejected through partialSuccess.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from '../../auth/hook.js';
import type { Span } from '../../model.js';
import { BatchCancelled, BatchUnprocessable } from '../../pipeline/ports.js';
import { isUnstorable } from '../../store/unstorable.js';
import type { BodyBytes } from './body.js';
import { preflight } from './cors.js';
import { decodeJson, decodeProtobuf, encodeExportResponse } from './decode.js';
import { CODE, CONTENT_TYPE, createIntake, type Format, type OtlpRouteOptions } from './intake.js';
import { otlpLogsRoute } from './logs-route.js';

export { formatOf, type OtlpRouteOptions } from './intake.js';

/** Names listed in a forbidden_service partialSuccess message. */
const MAX_NAMED_SERVICES = 5;

export async function otlpRoutes(app: FastifyInstance, opts: OtlpRouteOptions): Promise<void> {
  // The body is read by the handler itself: limits must hold before and after gunzip.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));

  const intake = createIntake(opts);
  const { deny, fail, rejected, clientGone, skipGone } = intake;
  if (opts.cors.enabled) app.options('/v1/traces', { config: { auth: 'open' } }, preflight(opts.cors, 'POST'));

  const shedder = opts.shedder;
  if (shedder) {
    shedder.start();
    app.addHook('onClose', async () => shedder.stop());
  }

  app.post('/v1/traces', { config: { auth: 'ingest', cors: true, deny } }, intake.handler(record));
  // POST /v1/logs: GenAI events as log records, under the same auth, limits and answers.
  otlpLogsRoute(app, opts, intake);

  /** Decodes and records a batch whose body is in. */
  async function record(request: FastifyRequest, reply: FastifyReply, format: Format, body: BodyBytes) {
    if (clientGone(request)) return skipGone(reply);
    const batch = decodeAndIngest(request, format, body);
    if (!batch.ok) return fail(reply, format, 400, 'malformed', CODE.INVALID_ARGUMENT, batch.message);
    try {
      await batch.recorded;
    } catch (err) {
      if (err instanceof BatchCancelled) return skipGone(reply);
      if (err instanceof BatchUnprocessable) {
        // Deterministic: a 503 would have the exporter resend it, and every span after it, forever.
        request.log.error({ err }, 'batch could not be processed; answered 500 (not retried)');
        const message = 'toolwatch could not process the batch; resending it would fail the same way';
        return fail(reply, format, 500, 'unprocessable', CODE.INTERNAL, message);
      }
      if (isUnstorable(err)) {
        // Retrying cannot help: the client must not resend it forever.
        request.log.warn({ err }, 'batch refused by the store as data it cannot keep; answered 400');
        const message = `the batch holds data the store cannot keep: ${(err as Error).message}`;
        return fail(reply, format, 400, 'unstorable', CODE.INVALID_ARGUMENT, message);
      }
      request.log.error({ err }, 'batch could not be recorded; asked the client to retry');
      reply.header('retry-after', String(opts.retryAfterSeconds));
      return fail(
        reply,
        format,
        503,
        'unavailable',
        CODE.UNAVAILABLE,
        'the batch could not be recorded; retry after the given delay',
      );
    }

    let partial: { rejectedSpans: number; errorMessage: string } | undefined;
    if (batch.unreadable) {
      rejected('unreadable_span', batch.unreadable.rejectedSpans);
      partial = batch.unreadable;
    }
    const forbidden = batch.forbidden;
    if (forbidden) {
      rejected('forbidden_service', forbidden.rejected);
      const names = [...forbidden.services].slice(0, MAX_NAMED_SERVICES).join(', ');
      const more =
        forbidden.services.size > MAX_NAMED_SERVICES ? ` and ${forbidden.services.size - MAX_NAMED_SERVICES} more` : '';
      const message = `${forbidden.rejected} spans of services this token may not write: ${names}${more}`;
      partial = {
        rejectedSpans: (partial?.rejectedSpans ?? 0) + forbidden.rejected,
        errorMessage: partial ? `${partial.errorMessage}; ${message}` : message,
      };
    }
    return reply.code(200).type(CONTENT_TYPE[format]).send(encodeExportResponse(format, partial));
  }

  /**
   * The body decoded and handed to the pipeline, with what the answer needs besides: apart from
   * record() so that neither the body nor the decoded spans stay referenced while it waits for the
   * commit (the pipeline keeps what it needs of them).
   */
  function decodeAndIngest(request: FastifyRequest, format: Format, body: BodyBytes): Ingesting {
    const limits = { maxDepth: opts.maxAttributeDepth, nowMs: opts.now() };
    const decoded = format === 'protobuf' ? decodeProtobuf(body.take(), limits) : decodeJson(body.take(), limits);
    if (!decoded.ok) return decoded;
    const view = principalOf(request).view;
    const forbidden = view.globs ? forbiddenSpans(decoded.spans, view.sees) : undefined;
    const spans = forbidden ? forbidden.allowed : decoded.spans;
    const sender = { writer: view.globs ? view : undefined, token: principalOf(request).name };
    let recorded: Promise<unknown>;
    try {
      recorded = opts.pipeline.ingestSpans(spans, 'otlp', () => clientGone(request), sender);
    } catch (err) {
      recorded = Promise.reject(err);
    }
    return {
      ok: true,
      recorded,
      unreadable:
        decoded.rejectedSpans > 0
          ? { rejectedSpans: decoded.rejectedSpans, errorMessage: decoded.rejectReasons.join('; ') }
          : undefined,
      forbidden:
        forbidden && forbidden.rejected > 0
          ? { rejected: forbidden.rejected, services: forbidden.services }
          : undefined,
    };
  }
}

/** A decoded batch on its way into the store, or why it could not be decoded. */
type Ingesting =
  | { ok: false; message: string }
  | {
      ok: true;
      recorded: Promise<unknown>;
      /** Spans the decoder could not read (partialSuccess). */
      unreadable: { rejectedSpans: number; errorMessage: string } | undefined;
      /** Spans of services the token may not write (partialSuccess). */
      forbidden: { rejected: number; services: Set<string> } | undefined;
    };

/** The spans of services the token may write, and what was left out (one glob test per service in the batch). */
function forbiddenSpans(spans: readonly Span[], sees: (service: string) => boolean) {
  const verdict = new Map<string, boolean>();
  const allowed: Span[] = [];
  const services = new Set<string>();
  for (const s of spans) {
    let ok = verdict.get(s.service);
    if (ok === undefined) verdict.set(s.service, (ok = sees(s.service)));
    if (ok) allowed.push(s);
    else services.add(s.service);
  }
  return { allowed, rejected: spans.length - allowed.length, services };
}
