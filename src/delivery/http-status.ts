/**
 * The one HTTP result classifier, as Alertmanager's notifier retrier and OpenTelemetry's OTLP
 * exporters decide: 2xx delivered; 429, 408 and 5xx worth another attempt (after the server's
 * Retry-After, when it sent one); anything else permanent — a redirect is not followed, and any
 * other 4xx (bad payload, bad token, gone) will be refused again.
 */
import { parseRetryAfter, type HeaderSource } from './retry-after.js';

export type HttpVerdict =
  | { kind: 'ok' }
  /** rateLimited: the server said so (429) or named a time (Retry-After): it holds the whole destination. */
  | { kind: 'retry'; retryAfterMs?: number; rateLimited: boolean }
  | { kind: 'permanent'; redirect: boolean };

export interface ClassifyOptions {
  headers?: HeaderSource;
  nowMs?: number;
  /** Further statuses a receiver documents as transient (the judge's endpoints: 409). */
  alsoRetry?: readonly number[];
}

export function isRetryableStatus(status: number, alsoRetry: readonly number[] = []): boolean {
  return status === 429 || status === 408 || status >= 500 || alsoRetry.includes(status);
}

export function classifyStatus(status: number, opts: ClassifyOptions = {}): HttpVerdict {
  if (status >= 200 && status < 300) return { kind: 'ok' };
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
