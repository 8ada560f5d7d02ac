/**
 * Retries in process, for a caller that waits for the answer (the judge's requests, the Langfuse
 * pull): a transient failure waits the server's Retry-After, or backs off, and tries again until the
 * attempts run out. What is delivered later instead of waited for goes through the outbox.
 */
import { retryDelay, type BackoffPolicy } from './backoff.js';

export interface RetryPolicy {
  /** Attempts in all (the first one included). */
  attempts: number;
  backoff: BackoffPolicy;
  /** A Retry-After longer than this ends the retries at once (the caller's run stops); default: any is waited. */
  maxRetryAfterMs?: number;
}

/** What a failure means for the next attempt. */
export interface Transient {
  retry: boolean;
  retryAfterMs?: number;
}

export interface RetryDeps<E> {
  /** Turns what fn threw into the error to rethrow (the caller's own type) … */
  error(err: unknown): E;
  /** … and says whether it is worth another attempt. */
  transient(e: E): Transient;
  sleep(ms: number): Promise<void>;
  random?: () => number;
  /** Before each wait. */
  onWait?(ms: number, e: E, attempt: number): void;
}

export async function withRetries<T, E>(
  fn: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  deps: RetryDeps<E>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const e = deps.error(err);
      const t = deps.transient(e);
      if (!t.retry || attempt >= policy.attempts) throw e;
      if (t.retryAfterMs !== undefined && t.retryAfterMs > (policy.maxRetryAfterMs ?? Number.POSITIVE_INFINITY))
        throw e;
      const wait = retryDelay(policy.backoff, attempt, t.retryAfterMs, deps.random);
      deps.onWait?.(wait, e, attempt);
      await deps.sleep(wait);
    }
  }
}
