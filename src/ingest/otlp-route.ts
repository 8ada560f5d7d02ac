/**
 * POST /v1/traces per the OTLP/HTTP specification: protobuf or JSON, optionally gzipped; the
 * answer in the request's format; 200 only after the batch is durably recorded; 400/413/415 for
 * what a retry cannot fix; 503 + Retry-After (never 500) for what it can.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics } from '../metrics/registry.js';
import { BatchCancelled, type Pipeline } from '../pipeline/pipeline.js';
import type { Store } from '../store/store.js';
import { isUnstorable } from '../store/unstorable.js';
import { readBody } from './body.js';
import type { LoadShedder } from './load-shedder.js';
import { decodeJson, decodeProtobuf, encodeExportResponse, encodeStatus } from './otlp-decode.js';

type Format = 'protobuf' | 'json';

const CONTENT_TYPE: Record<Format, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

// google.rpc.Code values carried in the Status body.
const CODE = { INVALID_ARGUMENT: 3, RESOURCE_EXHAUSTED: 8, UNAVAILABLE: 14 } as const;

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
  /** The clock span times are checked against (spans ending far in the future are rejected). */
  now: () => number;
  /** Refuses new batches early while too many are in flight or the event loop lags (load-shedder.ts). */
  shedder?: LoadShedder;
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

  const shedder = opts.shedder;
  if (shedder) {
    shedder.start();
    app.addHook('onClose', async () => shedder.stop());
  }

  app.post('/v1/traces', async (request, reply) => {
    if (!shedder) return handle(request, reply);
    shedder.inflight++;
    try {
      return await handle(request, reply);
    } finally {
      shedder.inflight--;
    }
  });

  /** The client went away: whatever we answer, it will resend, so work done now would count twice. */
  const clientGone = (request: FastifyRequest) => request.raw.socket?.destroyed === true;

  async function handle(request: FastifyRequest, reply: FastifyReply) {
    const format = formatOf(request.headers['content-type']);
    if (!format) {
      request.raw.resume();
      return fail(reply, 'json', 415, 'unsupported_media_type', CODE.INVALID_ARGUMENT, `Content-Type must be application/x-protobuf or application/json, got ${request.headers['content-type'] ?? 'none'}`);
    }
    const shed = shedder?.shed();
    if (shed) {
      request.raw.resume();
      reply.header('retry-after', String(opts.retryAfterSeconds));
      const why = shed === 'inflight' ? 'too many batches in flight' : 'event loop delay';
      return fail(reply, format, 503, 'overloaded', CODE.UNAVAILABLE, `toolwatch is overloaded (${why}); retry after the given delay`);
    }
    if (opts.isDraining() || opts.store.pendingWrites() >= opts.maxPendingBatches) {
      request.raw.resume();
      reply.header('retry-after', String(opts.retryAfterSeconds));
      return fail(reply, format, 503, 'unavailable', CODE.UNAVAILABLE, 'toolwatch is busy; retry after the given delay');
    }

    const body = await readBody(request.raw, opts.maxBodyBytes);
    if (!body.ok) {
      if (body.status === 413) reply.header('connection', 'close');
      request.raw.resume();
      return fail(reply, format, body.status, body.reason, body.status === 413 ? CODE.RESOURCE_EXHAUSTED : CODE.INVALID_ARGUMENT, body.message);
    }

    if (clientGone(request)) return skipGone(reply);
    const limits = { maxDepth: opts.maxAttributeDepth, nowMs: opts.now() };
    const decoded = format === 'protobuf' ? decodeProtobuf(body.body, limits) : decodeJson(body.body, limits);
    if (!decoded.ok) return fail(reply, format, 400, 'malformed', CODE.INVALID_ARGUMENT, decoded.message);

    try {
      await opts.pipeline.ingestSpans(decoded.spans, 'otlp', () => clientGone(request));
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
      return fail(reply, format, 503, 'unavailable', CODE.UNAVAILABLE, 'the batch could not be recorded; retry after the given delay');
    }

    let partial: { rejectedSpans: number; errorMessage: string } | undefined;
    if (decoded.rejectedSpans > 0) {
      opts.metrics.ingestRejected.inc({ reason: 'unreadable_span' }, decoded.rejectedSpans);
      partial = { rejectedSpans: decoded.rejectedSpans, errorMessage: decoded.rejectReasons.join('; ') };
    }
    return reply.code(200).type(CONTENT_TYPE[format]).send(encodeExportResponse(format, partial));
  }

  function skipGone(reply: FastifyReply) {
    opts.metrics.ingestRejected.inc({ reason: 'client_gone' });
    return reply.code(499).send();
  }

  function fail(reply: FastifyReply, format: Format, status: number, reason: string, code: number, message: string) {
    opts.metrics.ingestRejected.inc({ reason });
    return reply.code(status).type(CONTENT_TYPE[format]).send(encodeStatus(format, code, message));
  }
}
