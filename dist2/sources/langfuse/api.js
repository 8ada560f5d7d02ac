import { isRetryableStatus } from '../../delivery/http-status.js';
import { METADATA_KEYS_READ } from '../../normalize/langfuse.js';
/** Field groups asked of GET /api/public/v2/observations (the default is only core,basic). */
export const V2_FIELDS = 'core,basic,io,metadata,model,usage,metrics';
/** Metadata keys v2 must return whole (it cuts every other value over 200 characters). */
export const V2_EXPAND_METADATA = METADATA_KEYS_READ.join(',');
export class LangfuseHttpError extends Error {
    status;
    retryAfterMs;
    constructor(status, message, 
    /** From Retry-After (seconds or an HTTP date), when the server sent one. */
    retryAfterMs) {
        super(message);
        this.status = status;
        this.retryAfterMs = retryAfterMs;
        this.name = 'LangfuseHttpError';
    }
    /** 429, 408, 5xx, timeouts and network errors pass; anything else will not get better by waiting. */
    get retryable() {
        return typeof this.status === 'number' ? isRetryableStatus(this.status) : true;
    }
}
/** Whatever an API call threw, as a LangfuseHttpError (an unknown throw counts as a network error). */
export function toLangfuseError(err) {
    return err instanceof LangfuseHttpError
        ? err
        : new LangfuseHttpError('network', String(err?.message ?? err));
}
/** Waits between attempts, for the pull and the score writes alike: 1 s, 2 s, 4 s … capped at a minute. */
export const LANGFUSE_BACKOFF = { baseMs: 1000, maxMs: 60_000 };
//# sourceMappingURL=api.js.map