/**
 * The one HTTP result classifier, as Alertmanager's notifier retrier and OpenTelemetry's OTLP
 * exporters decide: 2xx delivered; 429, 408 and 5xx worth another attempt (after the server's
 * Retry-After, when it sent one); anything else permanent — a redirect is not followed, and any
 * other 4xx (bad payload, bad token, gone) will be refused again.
 */
import { parseRetryAfter } from './retry-after.js';
export function isRetryableStatus(status, alsoRetry = []) {
    return status === 429 || status === 408 || status >= 500 || alsoRetry.includes(status);
}
export function classifyStatus(status, opts = {}) {
    if (status >= 200 && status < 300)
        return { kind: 'ok' };
    if (isRetryableStatus(status, opts.alsoRetry)) {
        const after = parseRetryAfter(opts.headers, opts.nowMs ?? Date.now());
        return {
            kind: 'retry',
            ...(after !== undefined ? { retryAfterMs: after } : {}),
            rateLimited: status === 429 || after !== undefined,
        };
    }
    return { kind: 'permanent', redirect: status >= 300 && status < 400 };
}
//# sourceMappingURL=http-status.js.map