/**
 * Retries in process, for a caller that waits for the answer (the judge's requests, the Langfuse
 * pull): a transient failure waits the server's Retry-After, or backs off, and tries again until the
 * attempts run out. What is delivered later instead of waited for goes through the outbox.
 */
import { retryDelay } from './backoff.js';
export async function withRetries(fn, policy, deps) {
    for (let attempt = 1;; attempt++) {
        try {
            return await fn(attempt);
        }
        catch (err) {
            const e = deps.error(err);
            const t = deps.transient(e);
            if (!t.retry || attempt >= policy.attempts)
                throw e;
            if (t.retryAfterMs !== undefined && t.retryAfterMs > (policy.maxRetryAfterMs ?? Number.POSITIVE_INFINITY))
                throw e;
            const wait = retryDelay(policy.backoff, attempt, t.retryAfterMs, deps.random);
            deps.onWait?.(wait, e, attempt);
            await deps.sleep(wait);
        }
    }
}
//# sourceMappingURL=retry.js.map