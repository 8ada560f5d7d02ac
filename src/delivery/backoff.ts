/** The one backoff policy: exponential, capped, with optional jitter. */

export interface BackoffPolicy {
  /** The first retry's delay; each further retry doubles it. */
  baseMs: number;
  /** No delay is longer. */
  maxMs: number;
  /** Share of each delay drawn at random (0.25: between 75 % and 100 % of it); 0 or absent: exact. */
  jitter?: number;
}

/** The delay before retry n (1 = the first retry): baseMs × 2^(n−1), at most maxMs, less up to `jitter` of it. */
export function backoffDelay(p: BackoffPolicy, retry: number, random: () => number = Math.random): number {
  const d = Math.min(p.maxMs, p.baseMs * 2 ** Math.max(0, Math.min(30, retry - 1)));
  return p.jitter ? d * (1 - p.jitter + p.jitter * random()) : d;
}

/** Wait what the server asked for (Retry-After) when it asked, else back off. */
export function retryDelay(
  p: BackoffPolicy,
  retry: number,
  retryAfterMs: number | undefined,
  random?: () => number,
): number {
  return retryAfterMs ?? backoffDelay(p, retry, random);
}
