/**
 * How an eval request waits and retries. The parsing of Retry-After and the backoff schedule are
 * the project's existing ones (imported, not copied); only the loop lives here.
 * - 429 waits exactly Retry-After (retry-after-ms, seconds or an HTTP date) when that is at most
 *   max_retry_wait; a longer one ends the attempt at once (the observation becomes coverage loss);
 * - 5xx, 408/409, 529, timeouts and connection errors back off 1 s, 2 s, 4 s … (capped at 60 s);
 * - everything else is final.
 */
import { backoffMs } from '../ingest/langfuse-retry.js';
import { retryAfterMs } from '../judge/client.js';

export { retryAfterMs };

export interface RetryPolicy {
  maxRetries: number;
  maxRetryWaitMs: number;
  sleep: (ms: number) => Promise<void>;
}

export type Attempt<T, F> =
  { ok: true; value: T } | { ok: false; retryable: boolean; retryAfterMs?: number; failure: F };

export type Retried<T, F> = ({ ok: true; value: T } | { ok: false; failure: F }) & {
  attempts: number;
  waitedMs: number;
};

export async function withRetries<T, F>(
  attempt: () => Promise<Attempt<T, F>>,
  policy: RetryPolicy,
): Promise<Retried<T, F>> {
  let waitedMs = 0;
  for (let n = 1; ; n++) {
    const r = await attempt();
    if (r.ok) return { ok: true, value: r.value, attempts: n, waitedMs };
    if (!r.retryable || n > policy.maxRetries) return { ok: false, failure: r.failure, attempts: n, waitedMs };
    if (r.retryAfterMs !== undefined && r.retryAfterMs > policy.maxRetryWaitMs)
      return { ok: false, failure: r.failure, attempts: n, waitedMs };
    const wait = r.retryAfterMs ?? backoffMs(n);
    waitedMs += wait;
    await policy.sleep(wait);
  }
}
