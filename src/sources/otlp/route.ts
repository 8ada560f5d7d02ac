/**
 * POST /v1/traces per the OTLP/HTTP specification: protobuf or JSON, optionally gzipped; the
 * answer in the request's format; 200 only after the batch is durably recorded; 400/413/415 for
 * what a retry cannot fix; 503 + Retry-After (never 500) for what it can. Needs the `ingest` scope
 * (401/403 answered as a google.rpc.Status in the request's format); a token restricted to some
 * services has the spans of other services rejected through partialSuccess.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalOf, type DenyResponder } from '../../auth/hook.js';
import { UNRESTRICTED } from '../../auth/tokens.js';
import type { Span } from '../../model.js';
import type { IngestRejectReason, Metrics } from '../../metrics/registry.js';
import { BatchCancelled, type Pipeline } from '../../pipeline/pipeline.js';
import type { Store } from '../../store/store.js';
import { isUnstorable } from '../../store/unstorable.js';
import { readBody, type BodyPace } from './body.js';
import { preflight, type CorsPolicy } from './cors.js';
import { decodeJson, decodeProtobuf, encodeExportResponse, encodeStatus } from './decode.js';
import type { LoadShedder, ShedReason } from './load-shedder.js';

type Format = 'protobuf' | 'json';

const CONTENT_TYPE: Record<Format, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

// google.rpc.Code values carried in the Status body.
const CODE = {
  INVALID_ARGUMENT: 3,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

const SHED_TEXT: Record<ShedReason, string> = {
  inflight: 'too many batches in flight',
  token_share: "this token's share of the batches in flight is taken",
  event_loop_delay: 'event loop delay',
  queueing_delay: 'batches waited too long for their turn',
};

/** Names listed in a forbidden_service partialSuccess message. */
const MAX_NAMED_SERVICES = 5;

export interface OtlpRouteOptions {
  pipeline: Pipeline;
  store: Store;
  metrics: Metrics;
  maxBodyBytes: number;
  maxPendingBatches: number;
  retryAfterSeconds: number;
  maxAttributeDepth: number;
  /** True while the process drains for shutdown: new batches get 503 so the client retries elsewhere. */
  isDraining: () => boolean;
  /** Browser origins allowed to POST (server.cors_origins). */
  cors: CorsPolicy;
  /** The clock span times are checked against (spans ending far in the future are rejected). */
  now: () => number;
  /** Refuses new batches early while too many are in flight or the event loop lags (load-shedder.ts). */
  shedder?: LoadShedder;
  /** The deadline and minimum rate of a batch's body (ingest.body_timeout, ingest.min_body_rate). */
  bodyPace?: BodyPace;
}

export function formatOf(contentType: string | undefined): Format | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return undefined;
}

export async function otlpRoutes(app: FastifyInstance, opts: OtlpRouteOptions): Promise<void> {
  // The body is read by the handler itself: limits must hold before and after gunzip.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));

  /** 401/403 as OTLP clients read them: a Status in the request's format; the unread body is not drained. */
  const deny: DenyResponder = (req, reply, status, message) => {
    reply.header('connection', 'close');
    req.raw.resume();
    const code = status === 401 ? CODE.UNAUTHENTICATED : CODE.PERMISSION_DENIED;
    const format = formatOf(req.headers['content-type']) ?? 'json';
    return reply
      .code(status)
      .type(CONTENT_TYPE[format])
      .send(encodeStatus(format, code, message));
  };
  if (opts.cors.enabled) app.options('/v1/traces', { config: { auth: 'open' } }, preflight(opts.cors, 'POST'));

  const shedder = opts.shedder;
  if (shedder) {
    shedder.start();
    app.addHook('onClose', async () => shedder.stop());
  }

  app.post('/v1/traces', { config: { auth: 'ingest', cors: true, deny } }, async (request, reply) => {
    const principal = principalOf(request);
    // Without tokens every request is the same anonymous principal: a share of it would only shrink the limit.
    if (!shedder || principal === UNRESTRICTED) return handle(request, reply);
    const refused = shedder.enterToken(principal.name);
    if (refused) return overloaded(request, reply, refused);
    try {
      return await handle(request, reply);
    } finally {
      shedder.leaveToken(principal.name);
    }
  });

  /** 503 + Retry-After at once: the body (if unread) is drained, the client retries later. */
  function overloaded(request: FastifyRequest, reply: FastifyReply, why: ShedReason) {
    request.raw.resume();
    opts.metrics.ingestShed.inc({ reason: why });
    reply.header('retry-after', String(opts.retryAfterSeconds));
    const format = formatOf(request.headers['content-type']) ?? 'json';
    const message = `toolwatch is overloaded (${SHED_TEXT[why]}); retry after the given delay`;
    return fail(reply, format, 503, 'overloaded', CODE.UNAVAILABLE, message);
  }

  /** The client went away: whatever we answer, it will resend, so work done now would count twice. */
  const clientGone = (request: FastifyRequest) => request.raw.socket?.destroyed === true;

  async function handle(request: FastifyRequest, reply: FastifyReply) {
    const format = formatOf(request.headers['content-type']);
    if (!format) {
      request.raw.resume();
      return fail(
        reply,
        'json',
        415,
        'unsupported_media_type',
        CODE.INVALID_ARGUMENT,
        `Content-Type must be application/x-protobuf or application/json, got ${request.headers['content-type'] ?? 'none'}`,
      );
    }
    // Checked before the body is read, so a refusal costs nothing; the batch takes a slot once it is in.
    const shed = shedder?.shed();
    if (shed) return overloaded(request, reply, shed);
    if (opts.isDraining() || opts.store.pendingWrites() >= opts.maxPendingBatches) {
      request.raw.resume();
      reply.header('retry-after', String(opts.retryAfterSeconds));
      return fail(
        reply,
        format,
        503,
        'unavailable',
        CODE.UNAVAILABLE,
        'toolwatch is busy; retry after the given delay',
      );
    }

    const body = await readBody(request.raw, opts.maxBodyBytes, opts.bodyPace);
    if (!body.ok) {
      if (body.status === 413 || body.status === 408) reply.header('connection', 'close');
      // A slow body is not waited for: the answer closes the connection.
      if (body.status !== 408) request.raw.resume();
      return fail(
        reply,
        format,
        body.status,
        body.reason,
        body.status === 413 ? CODE.RESOURCE_EXHAUSTED : body.status === 408 ? CODE.UNAVAILABLE : CODE.INVALID_ARGUMENT,
        body.message,
      );
    }
    if (!shedder) return record(request, reply, format, body.body);
    const late = shedder.admit();
    if (late) return overloaded(request, reply, late);
    try {
      const waited = await shedder.startWork();
      if (waited) return overloaded(request, reply, waited);
      try {
        return await record(request, reply, format, body.body);
      } finally {
        shedder.endWork();
      }
    } finally {
      shedder.release();
    }
  }

  /** Decodes and records a batch whose body is in. */
  async function record(request: FastifyRequest, reply: FastifyReply, format: Format, raw: Buffer) {
    if (clientGone(request)) return skipGone(reply);
    const limits = { maxDepth: opts.maxAttributeDepth, nowMs: opts.now() };
    const decoded = format === 'protobuf' ? decodeProtobuf(raw, limits) : decodeJson(raw, limits);
    if (!decoded.ok) return fail(reply, format, 400, 'malformed', CODE.INVALID_ARGUMENT, decoded.message);

    const view = principalOf(request).view;
    const forbidden = view.globs ? forbiddenSpans(decoded.spans, view.sees) : undefined;
    const spans = forbidden ? forbidden.allowed : decoded.spans;

    try {
      await opts.pipeline.ingestSpans(spans, 'otlp', () => clientGone(request));
    } catch (err) {
      if (err instanceof BatchCancelled) return skipGone(reply);
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
    if (decoded.rejectedSpans > 0) {
      rejected('unreadable_span', decoded.rejectedSpans);
      partial = { rejectedSpans: decoded.rejectedSpans, errorMessage: decoded.rejectReasons.join('; ') };
    }
    if (forbidden && forbidden.rejected > 0) {
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
