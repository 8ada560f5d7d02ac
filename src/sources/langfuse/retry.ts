/**
 * How the Langfuse source waits: 429 honours Retry-After; 5xx, timeouts and network errors back
 * off exponentially. A request that keeps failing ends the run without moving the watermark, so
 * the pull pauses and the next run resumes the same window — it never skips one.
 */
import { LangfuseHttpError } from './api.js';

const BASE_MS = 1000;
const CAP_MS = 60_000;

/** 1 s, 2 s, 4 s … capped at a minute. */
export function backoffMs(attempt: number): number {
  return Math.min(CAP_MS, BASE_MS * 2 ** Math.max(0, attempt - 1));
}

export interface RetryDeps {
  sleep: (ms: number) => Promise<void>;
  /** Called for every answer or failure, with the HTTP status or 'timeout' / 'network'. */
  onAttempt: (status: string) => void;
  onWait?: (ms: number, err: LangfuseHttpError) => void;
}

/** Runs fn until it succeeds, it fails with a non-retryable error, or maxAttempts ran out. */
export async function withRetry<T>(fn: () => Promise<T>, maxAttempts: number, deps: RetryDeps): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const v = await fn();
      deps.onAttempt('200');
      return v;
    } catch (err) {
      const e = err instanceof LangfuseHttpError ? err : new LangfuseHttpError('network', String((err as Error)?.message ?? err));
      deps.onAttempt(String(e.status));
      if (!e.retryable || attempt >= maxAttempts) throw e;
      // Retry-After is the server's word: not shortened, not capped by our backoff.
      const wait = e.status === 429 && e.retryAfterMs !== undefined ? e.retryAfterMs : backoffMs(attempt);
      deps.onWait?.(wait, e);
      await deps.sleep(wait);
    }
  }
}
