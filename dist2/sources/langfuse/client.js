/**
 * The LangfuseApi port over @langfuse/client. The client's own retries are turned off
 * (maxRetries: 0): it caps Retry-After at 60 s and sleeps on the real clock, while the sync must
 * honour any Retry-After, count every request by status and stay testable with a fake clock.
 * Its errors carry the status and the response headers, so Retry-After and a distinct 404
 * (no v2 endpoint on this server) are read from them here.
 */
import { LangfuseClient } from '@langfuse/client';
import { parseRetryAfter } from '../../delivery/retry-after.js';
import { LangfuseHttpError } from './api.js';
function toHttpError(err) {
    const e = (err ?? {});
    // The client aborts its fetch with the bare string "timeout" as the reason; Node's fetch rejects
    // with that string, so the client reports an "unknown" error whose message is "timeout" rather
    // than its LangfuseAPITimeoutError. Both forms are a timeout here.
    if (e.name === 'LangfuseAPITimeoutError' ||
        (e.statusCode === undefined && /^"?timeout"?$/i.test(String(e.message ?? '').trim()))) {
        return new LangfuseHttpError('timeout', 'request timed out');
    }
    if (typeof e.statusCode === 'number') {
        const retryAfterMs = parseRetryAfter(e.rawResponse?.headers, Date.now());
        return new LangfuseHttpError(e.statusCode, `HTTP ${e.statusCode}`, retryAfterMs);
    }
    // No status: the request never got an answer (refused, reset, DNS). Never echo headers or keys.
    return new LangfuseHttpError('network', (e.message ?? 'network error').slice(0, 200));
}
/** v3: the trace is the subject (a trace score) or the subject's trace (an observation score). */
function fromV3(raw) {
    const s = raw;
    const subject = s.subject;
    const traceId = subject?.kind === 'trace' ? subject.id : subject?.kind === 'observation' ? (subject.traceId ?? null) : null;
    const value = typeof s.value === 'number' || typeof s.value === 'boolean' || typeof s.value === 'string' ? s.value : null;
    return {
        id: s.id,
        traceId,
        name: s.name,
        dataType: s.dataType,
        value,
        comment: s.comment ?? null,
        timestamp: s.timestamp,
    };
}
function fromV2(raw) {
    const s = raw;
    const value = typeof s.value === 'number' || typeof s.value === 'string' ? s.value : null;
    return {
        id: s.id,
        traceId: s.traceId ?? null,
        name: s.name,
        dataType: s.dataType,
        value,
        stringValue: s.stringValue ?? null,
        comment: s.comment ?? null,
        timestamp: s.timestamp,
    };
}
export function createLangfuseApi(opts) {
    const client = new LangfuseClient({ publicKey: opts.publicKey, secretKey: opts.secretKey, baseUrl: opts.baseUrl });
    const stop = opts.signal;
    const base = { maxRetries: 0, timeoutInSeconds: opts.requestTimeoutMs / 1000 };
    const call = async (fn) => {
        // A signal of its own per request, linked to the stop signal only while it runs: the client
        // adds an abort listener to the signal it is given and never removes it.
        const own = new AbortController();
        const onStop = () => own.abort(stop?.reason);
        if (stop?.aborted)
            own.abort(stop.reason);
        stop?.addEventListener('abort', onStop, { once: true });
        try {
            return await fn({ ...base, abortSignal: own.signal });
        }
        catch (err) {
            throw toHttpError(err);
        }
        finally {
            stop?.removeEventListener('abort', onStop);
        }
    };
    return {
        observationsV2: (q) => call(async (req) => {
            const res = await client.api.observations.getMany({
                fromStartTime: q.fromStartTime,
                toStartTime: q.toStartTime,
                limit: q.limit,
                fields: q.fields,
                expandMetadata: q.expandMetadata,
                ...(q.cursor ? { cursor: q.cursor } : {}),
            }, req);
            return {
                data: res.data,
                ...(res.meta?.cursor ? { cursor: res.meta.cursor } : {}),
            };
        }),
        observationsV1: (q) => call(async (req) => {
            const res = await client.api.legacy.observationsV1.getMany({ fromStartTime: q.fromStartTime, toStartTime: q.toStartTime, limit: q.limit, page: q.page }, req);
            return { data: res.data, totalPages: Number(res.meta?.totalPages ?? 0) };
        }),
        createScore: (body) => call(async (req) => {
            await client.api.scores.create(body, req);
        }),
        scoresV3: (q) => call(async (req) => {
            const res = await client.api.scoresV3.getManyV3({
                fromTimestamp: q.fromTimestamp,
                toTimestamp: q.toTimestamp,
                limit: q.limit,
                name: q.names.join(','),
                fields: 'subject,details',
                ...(q.cursor ? { cursor: q.cursor } : {}),
            }, req);
            return { data: res.data.map(fromV3), ...(res.meta?.cursor ? { cursor: res.meta.cursor } : {}) };
        }),
        scoresV2: (q) => call(async (req) => {
            const res = await client.api.scores.getMany({
                fromTimestamp: q.fromTimestamp,
                toTimestamp: q.toTimestamp,
                limit: q.limit,
                page: q.page,
                name: q.name,
                fields: 'score',
            }, req);
            return { data: res.data.map(fromV2), totalPages: Number(res.meta?.totalPages ?? 0) };
        }),
    };
}
//# sourceMappingURL=client.js.map