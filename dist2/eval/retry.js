import { parseRetryAfter } from '../delivery/retry-after.js';
import { withRetries as retry } from '../delivery/retry.js';
const BACKOFF = { baseMs: 1000, maxMs: 60_000 };
/** The server's requested wait in ms, if it named one. */
export const retryAfterMs = (headers) => parseRetryAfter(headers, Date.now());
/** A failed attempt carried through the shared loop, which retries on what is thrown. */
class Failed {
    attempt;
    constructor(attempt) {
        this.attempt = attempt;
    }
}
export async function withRetries(attempt, policy) {
    let attempts = 0;
    let waitedMs = 0;
    try {
        const value = await retry(async (n) => {
            attempts = n;
            const r = await attempt();
            if (r.ok)
                return r.value;
            throw new Failed(r);
        }, { attempts: policy.maxRetries + 1, backoff: BACKOFF, maxRetryAfterMs: policy.maxRetryWaitMs }, {
            error: (err) => err,
            transient: (err) => {
                if (!(err instanceof Failed))
                    return { retry: false };
                const a = err.attempt;
                return { retry: a.retryable, ...(a.retryAfterMs !== undefined ? { retryAfterMs: a.retryAfterMs } : {}) };
            },
            sleep: policy.sleep,
            onWait: (ms) => {
                waitedMs += ms;
            },
        });
        return { ok: true, value, attempts, waitedMs };
    }
    catch (err) {
        if (err instanceof Failed)
            return { ok: false, failure: err.attempt.failure, attempts, waitedMs };
        throw err;
    }
}
//# sourceMappingURL=retry.js.map