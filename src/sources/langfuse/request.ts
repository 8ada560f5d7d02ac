/**
 * One request to the Langfuse API, retried until it succeeds, fails for good (401/403/400 …) or the
 * attempts run out — shared by the observation pull and the feedback pull. Retry-After is the
 * server's word: waited as sent, not shortened, not capped by our backoff. Every attempt is counted
 * by endpoint and status.
 */
import type { Logger } from 'pino';
import { withRetries } from '../../delivery/retry.js';
import { LANGFUSE_BACKOFF, toLangfuseError } from './api.js';

export type ReadEndpoint = 'v2_observations' | 'v1_observations' | 'v3_scores_read' | 'v2_scores_read';

export interface RequestContext {
  maxAttempts: number;
  sleep: (ms: number) => Promise<void>;
  log: Pick<Logger, 'warn'>;
  onRequest?: (endpoint: ReadEndpoint, status: string) => void;
}

export function langfuseRequest<T>(endpoint: ReadEndpoint, fn: () => Promise<T>, ctx: RequestContext): Promise<T> {
  const attempt = async (): Promise<T> => {
    const v = await fn();
    ctx.onRequest?.(endpoint, '200');
    return v;
  };
  return withRetries(
    attempt,
    { attempts: ctx.maxAttempts, backoff: LANGFUSE_BACKOFF },
    {
      error: (err) => {
        const e = toLangfuseError(err);
        ctx.onRequest?.(endpoint, String(e.status));
        return e;
      },
      transient: (e) => ({
        retry: e.retryable,
        ...(e.retryAfterMs !== undefined ? { retryAfterMs: e.retryAfterMs } : {}),
      }),
      sleep: ctx.sleep,
      onWait: (ms, e) =>
        ctx.log.warn(
          { endpoint, status: e.status, waitMs: ms },
          'langfuse: request failed; waiting before the next attempt',
        ),
    },
  );
}
