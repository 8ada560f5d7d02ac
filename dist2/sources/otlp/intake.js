import { principalOf } from '../../auth/hook.js';
import { UNRESTRICTED } from '../../auth/tokens.js';
import { readBody } from './body.js';
import { encodeStatus } from './decode.js';
export const CONTENT_TYPE = { protobuf: 'application/x-protobuf', json: 'application/json' };
// google.rpc.Code values carried in the Status body.
export const CODE = {
    INVALID_ARGUMENT: 3,
    PERMISSION_DENIED: 7,
    RESOURCE_EXHAUSTED: 8,
    INTERNAL: 13,
    UNAVAILABLE: 14,
    UNAUTHENTICATED: 16,
};
const SHED_TEXT = {
    inflight: 'too many batches in flight',
    token_share: "this token's share of the batches in flight is taken",
    event_loop_delay: 'event loop delay',
    queueing_delay: 'batches waited too long for their turn',
};
export function formatOf(contentType) {
    const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
    if (type === 'application/x-protobuf' || type === 'application/protobuf')
        return 'protobuf';
    if (type === 'application/json')
        return 'json';
    return undefined;
}
export function createIntake(opts) {
    const shedder = opts.shedder;
    const rejected = (reason, n = 1) => opts.metrics.ingestRejected.inc({ reason }, n);
    const fail = (reply, format, status, reason, code, message) => {
        rejected(reason);
        return reply
            .code(status)
            .type(CONTENT_TYPE[format])
            .send(encodeStatus(format, code, message));
    };
    const deny = (req, reply, status, message) => {
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
    function overloaded(request, reply, why) {
        request.raw.resume();
        opts.metrics.ingestShed.inc({ reason: why });
        reply.header('retry-after', String(opts.retryAfterSeconds));
        const format = formatOf(request.headers['content-type']) ?? 'json';
        const message = `toolwatch is overloaded (${SHED_TEXT[why]}); retry after the given delay`;
        return fail(reply, format, 503, 'overloaded', CODE.UNAVAILABLE, message);
    }
    async function admit(request, reply, record) {
        const format = formatOf(request.headers['content-type']);
        if (!format) {
            request.raw.resume();
            const got = request.headers['content-type'] ?? 'none';
            const message = `Content-Type must be application/x-protobuf or application/json, got ${got}`;
            return fail(reply, 'json', 415, 'unsupported_media_type', CODE.INVALID_ARGUMENT, message);
        }
        // Checked before the body is read, so a refusal costs nothing; the batch takes a slot once it is in.
        const shed = shedder?.shed();
        if (shed)
            return overloaded(request, reply, shed);
        if (opts.isDraining() || opts.store.pendingWrites() >= opts.maxPendingBatches) {
            request.raw.resume();
            reply.header('retry-after', String(opts.retryAfterSeconds));
            const message = 'toolwatch is busy; retry after the given delay';
            return fail(reply, format, 503, 'unavailable', CODE.UNAVAILABLE, message);
        }
        const body = await readBody(request.raw, opts.maxBodyBytes, opts.bodyPace);
        if (!body.ok) {
            if (body.status === 413 || body.status === 408)
                reply.header('connection', 'close');
            // A slow body is not waited for: the answer closes the connection.
            if (body.status !== 408)
                request.raw.resume();
            const code = body.status === 413 ? CODE.RESOURCE_EXHAUSTED : body.status === 408 ? CODE.UNAVAILABLE : CODE.INVALID_ARGUMENT;
            return fail(reply, format, body.status, body.reason, code, body.message);
        }
        if (!shedder)
            return record(request, reply, format, body.body);
        const late = shedder.admit();
        if (late)
            return overloaded(request, reply, late);
        try {
            const waited = await shedder.startWork();
            if (waited)
                return overloaded(request, reply, waited);
            try {
                return await record(request, reply, format, body.body);
            }
            finally {
                shedder.endWork();
            }
        }
        finally {
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
            if (!shedder || principal === UNRESTRICTED)
                return admit(request, reply, record);
            const refused = shedder.enterToken(principal.name);
            if (refused)
                return overloaded(request, reply, refused);
            try {
                return await admit(request, reply, record);
            }
            finally {
                shedder.leaveToken(principal.name);
            }
        },
    };
}
//# sourceMappingURL=intake.js.map