/** The one backoff policy: exponential, capped, with optional jitter. */
/** The delay before retry n (1 = the first retry): baseMs × 2^(n−1), at most maxMs, less up to `jitter` of it. */
export function backoffDelay(p, retry, random = Math.random) {
    const d = Math.min(p.maxMs, p.baseMs * 2 ** Math.max(0, Math.min(30, retry - 1)));
    return p.jitter ? d * (1 - p.jitter + p.jitter * random()) : d;
}
/** Wait what the server asked for (Retry-After) when it asked, else back off. */
export function retryDelay(p, retry, retryAfterMs, random) {
    return retryAfterMs ?? backoffDelay(p, retry, random);
}
//# sourceMappingURL=backoff.js.map