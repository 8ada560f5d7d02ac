/** What a time bound may be, as util/time-params.ts parseSince reads it. */
export const TIME_BOUND = 'a duration (15m, 24h), an RFC 3339 time or epoch milliseconds';
export function badRequest(reply, message) {
    return reply.code(400).send({ error: 'Bad Request', message });
}
/** A `since` query parameter parseSince could not read. */
export const badSince = (reply) => badRequest(reply, `querystring/since must be ${TIME_BOUND}`);
//# sourceMappingURL=bad-request.js.map