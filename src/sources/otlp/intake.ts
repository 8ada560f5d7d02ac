/**
 * What every OTLP/HTTP signal route (/v1/traces, /v1/logs) does before and around recording a
 * batch, written once so both hold the same limits: the Content-Type, the token's share of the
 * slots, load shedding and draining before the body is read (a refusal costs nothing), the body's
 * size, deadline and minimum rate, then a slot and a turn at the work once the body is in. Every
 * answer is a google.rpc.Status in the request's format, counted under its reject reason.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { principalOf, type DenyResponder } from '../../auth/hook.js';
import { UNRESTRICTED } from '../../auth/tokens.js';
import type { IngestRejectReason, Metrics } from '../../metrics/registry.js';
import type { SpanConsumer } from '../../pipeline/ports.js';
import type { Store } from '../../store/store.js';
import { type BodyBytes, readBody, type BodyPace } from './body.js';
import type { CorsPolicy } from './cors.js';
import { encodeStatus } from './decode.js';
import type { LoadShedder, ShedReason } from './load-shedder.js';

export type Format = 'protobuf' | 'json';

export const CONTENT_TYPE: Record<Format, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

// google.rpc.Code values carried in the Status body.
export const CODE = {
  INVALID_ARGUMENT: 3,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

const SHED_TEXT: Record<ShedReason, string> = {
  inflight: 'too many batches in flight',
  token_share: "this token's share of the batches in flight is taken",
  event_loop_delay: 'event loop delay',
  queueing_delay: 'batches waited too long for their turn',
};

export interface OtlpRouteOptions {
  pipeline: SpanConsumer;
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
  // What every exporter sends, exactly: no split, trim or lower-casing per batch.
  if (contentType === 'application/x-protobuf') return 'protobuf';
  if (contentType === 'application/json') return 'json';
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return undefined;
}

/** Records a batch whose body is in and answers it (`body.take()` once, where it is decoded). */
export type RecordBatch = (
  request: FastifyRequest,
  reply: FastifyReply,
  format: Format,
  body: BodyBytes,
) => Promise<FastifyReply>;

export interface Intake {
  /** 401/403 as OTLP clients read them: a Status in the request's format; the unread body is not drained. */
  deny: DenyResponder;
  /** The route handler: every limit above, then `record` with the body in. */
  handler(record: RecordBatch): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
  fail(
    reply: FastifyReply,
    format: Format,
    status: number,
    reason: IngestRejectReason,
    code: number,
    msg: string,
  ): FastifyReply;
  rejected(reason: IngestRejectReason, n?: number): void;
  /** The client went away: whatever we answer, it will resend, so work done now would count twice. */
  clientGone(request: FastifyRequest): boolean;
  skipGone(reply: FastifyReply): FastifyReply;
}

export function createIntake(opts: OtlpRouteOptions): Intake {
  const shedder = opts.shedder;

  const rejected = (reason: IngestRejectReason, n = 1) => opts.metrics.ingestRejected.inc({ reason }, n);

  const fail: Intake['fail'] = (reply, format, status, reason, code, message) => {
    rejected(reason);
    return reply
      .code(status)
      .type(CONTENT_TYPE[format])
      .send(encodeStatus(format, code, message));
  };

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

  /** 503 + Retry-After at once: the body (if unread) is drained, the client retries later. */
  function overloaded(request: FastifyRequest, reply: FastifyReply, why: ShedReason) {
    request.raw.resume();
    opts.metrics.ingestShed.inc({ reason: why });
    reply.header('retry-after', String(opts.retryAfterSeconds));
    const format = formatOf(request.headers['content-type']) ?? 'json';
    const message = `toolwatch is overloaded (${SHED_TEXT[why]}); retry after the given delay`;
    return fail(reply, format, 503, 'overloaded', CODE.UNAVAILABLE, message);
  }

  async function admit(request: FastifyRequest, reply: FastifyReply, record: RecordBatch) {
    const format = formatOf(request.headers['content-type']);
    if (!format) {
      request.raw.resume();
      const got = request.headers['content-type'] ?? 'none';
      const message = `Content-Type must be application/x-protobuf or application/json, got ${got}`;
      return fail(reply, 'json', 415, 'unsupported_media_type', CODE.INVALID_ARGUMENT, message);
    }
    // Checked before the body is read, so a refusal costs nothing; the batch takes a slot once it is in.
    const shed = shedder?.shed();
    if (shed) return overloaded(request, reply, shed);
    if (opts.isDraining() || opts.store.pendingWrites() >= opts.maxPendingBatches) {
      request.raw.resume();
      reply.header('retry-after', String(opts.retryAfterSeconds));
      const message = 'toolwatch is busy; retry after the given delay';
      return fail(reply, format, 503, 'unavailable', CODE.UNAVAILABLE, message);
    }

    const body = await readBody(request.raw, opts.maxBodyBytes, opts.bodyPace);
    if (!body.ok) {
      if (body.status === 413 || body.status === 408) reply.header('connection', 'close');
      // A slow body is not waited for: the answer closes the connection.
      if (body.status !== 408) request.raw.resume();
      const code =
        body.status === 413 ? CODE.RESOURCE_EXHAUSTED : body.status === 408 ? CODE.UNAVAILABLE : CODE.INVALID_ARGUMENT;
      return fail(reply, format, body.status, body.reason, code, body.message);
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

  return {
    deny,
    fail,
    rejected,
    clientGone: (request) => request.raw.socket?.destroyed === true,
    skipGone(reply) {
      rejected('client_gone');
      return reply.code(499).send();
    },
    handler: (record) => async (request, reply) => {
      const principal = principalOf(request);
      // Without tokens every request is the same anonymous principal: a share of it would only shrink the limit.
      if (!shedder || principal === UNRESTRICTED) return admit(request, reply, record);
      const refused = shedder.enterToken(principal.name);
      if (refused) return overloaded(request, reply, refused);
      try {
        return await admit(request, reply, record);
      } finally {
        shedder.leaveToken(principal.name);
      }
    },
  };
}
