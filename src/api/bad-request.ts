/**
 * The 400 answers the API routes share, in the shape Fastify's own validation gives
 * (`{error, message}` with the field's path first), so a client reads every refusal alike.
 */
import type { FastifyReply } from 'fastify';

/** What a time bound may be, as util/time-params.ts parseSince reads it. */
export const TIME_BOUND = 'a duration (15m, 24h), an RFC 3339 time or epoch milliseconds';

export function badRequest(reply: FastifyReply, message: string) {
  return reply.code(400).send({ error: 'Bad Request', message });
}

/** A `since` query parameter parseSince could not read. */
export const badSince = (reply: FastifyReply) => badRequest(reply, `querystring/since must be ${TIME_BOUND}`);
