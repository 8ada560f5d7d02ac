import { withRetries } from '../../delivery/retry.js';
import { LANGFUSE_BACKOFF, toLangfuseError } from './api.js';
export function langfuseRequest(endpoint, fn, ctx) {
    const attempt = async () => {
        const v = await fn();
        ctx.onRequest?.(endpoint, '200');
        return v;
    };
    return withRetries(attempt, { attempts: ctx.maxAttempts, backoff: LANGFUSE_BACKOFF }, {
        error: (err) => {
            const e = toLangfuseError(err);
            ctx.onRequest?.(endpoint, String(e.status));
            return e;
        },
        transient: (e) => ({
            retry: e.retryable,
            ...(e.retryAfterMs !== undefined ? { retryAfterMs: e.retryAfterMs } : {}),
        }),
        sleep: ctx.sleep,
        onWait: (ms, e) => ctx.log.warn({ endpoint, status: e.status, waitMs: ms }, 'langfuse: request failed; waiting before the next attempt'),
    });
}
//# sourceMappingURL=request.js.map