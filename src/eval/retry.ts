/**
 * How an eval request waits and retries, on the project's one retry loop (src/delivery/): a 429
 * waits exactly Retry-After (retry-after-ms, seconds or an HTTP date) when that is at most
 * max_retry_wait, and a longer one ends the attempt at once (the observation becomes coverage
 * loss); 5xx, 408/409, 529, timeouts and connection errors back off 1 s, 2 s, 4 s … (capped at
 * 60 s); everything else is final. An adapter reports each attempt as a value, never throws it.
 */
import type { BackoffPolicy } from '../delivery/backoff.js';
import { type HeaderSource, parseRetryAfter } from '../delivery/retry-after.js';
import { withRetries as retry } from '../delivery/retry.js';

const BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 60_000 };

/** The server's requested wait in ms, if it named one. */
export const retryAfterMs = (headers: HeaderSource): number | undefined => parseRetryAfter(headers, Date.now());

export interface RetryPolicy {
  maxRetries: number;
  maxRetryWaitMs: number;
  sleep: (ms: number) => Promise<void>;
}

export type Attempt<T, F> =
  | { ok: true; value: T }
  | { ok: false; retryable: boolean; retryAfterMs?: number; failure: F };

export type Retried<T, F> = ({ ok: true; value: T } | { ok: false; failure: F }) & {
  attempts: number;
  waitedMs: number;
};

/** A failed attempt carried through the shared loop, which retries on what is thrown. */
class Failed<F> {
  constructor(readonly attempt: { retryable: boolean; retryAfterMs?: number; failure: F }) {}
}

export async function withRetries<T, F>(
  attempt: () => Promise<Attempt<T, F>>,
  policy: RetryPolicy,
): Promise<Retried<T, F>> {
  let attempts = 0;
  let waitedMs = 0;
  try {
    const value = await retry(
      async (n) => {
        attempts = n;
        const r = await attempt();
        if (r.ok) return r.value;
        throw new Failed<F>(r);
      },
      { attempts: policy.maxRetries + 1, backoff: BACKOFF, maxRetryAfterMs: policy.maxRetryWaitMs },
      {
        error: (err) => err,
        transient: (err) => {
          if (!(err instanceof Failed)) return { retry: false };
          const a = err.attempt;
          return { retry: a.retryable, ...(a.retryAfterMs !== undefined ? { retryAfterMs: a.retryAfterMs } : {}) };
        },
        sleep: policy.sleep,
        onWait: (ms) => {
          waitedMs += ms;
        },
      },
    );
    return { ok: true, value, attempts, waitedMs };
  } catch (err) {
    if (err instanceof Failed) return { ok: false, failure: (err as Failed<F>).attempt.failure, attempts, waitedMs };
    throw err;
  }
}
