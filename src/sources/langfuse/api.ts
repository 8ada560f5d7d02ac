/**
 * The port the Langfuse sync talks to: two observation listings and score creation. The
 * production adapter wraps @langfuse/client (client.ts); tests may pass any object.
 * Every failure is a LangfuseHttpError, so the retry policy never has to know the client library.
 */
import type { BackoffPolicy } from '../../delivery/backoff.js';
import { isRetryableStatus } from '../../delivery/http-status.js';
import { METADATA_KEYS_READ, type LangfuseObservation } from '../../normalize/langfuse.js';

/** Field groups asked of GET /api/public/v2/observations (the default is only core,basic). */
export const V2_FIELDS = 'core,basic,io,metadata,model,usage,metrics';
/** Metadata keys v2 must return whole (it cuts every other value over 200 characters). */
export const V2_EXPAND_METADATA = METADATA_KEYS_READ.join(',');

export interface WindowQuery {
  /** ISO 8601, inclusive. */
  fromStartTime: string;
  /** ISO 8601, exclusive. */
  toStartTime: string;
  limit: number;
}

export interface ScoreBody {
  /** Deterministic: Langfuse upserts by id, so a resend after a lost answer is not a second score. */
  id: string;
  traceId: string;
  observationId?: string;
  name: string;
  value: number | string;
  dataType: 'CATEGORICAL' | 'BOOLEAN' | 'NUMERIC';
  comment?: string;
  metadata?: Record<string, unknown>;
}

/** A score as read back (v3 and v2 answers mapped to one shape by the adapter). */
export interface ScoreRead {
  id: string;
  /** The trace the score is on (an observation score's trace too); null for session and dataset-run scores. */
  traceId: string | null;
  name: string;
  dataType: string;
  /** v3: number, boolean or string by dataType; v2: a number (BOOLEAN 1/0), categories in stringValue. */
  value: number | boolean | string | null;
  stringValue?: string | null;
  comment?: string | null;
  /** ISO 8601. */
  timestamp: string;
}

export interface ScoreQuery {
  /** ISO 8601, inclusive. */
  fromTimestamp: string;
  /** ISO 8601, exclusive. */
  toTimestamp: string;
  limit: number;
}

export interface LangfuseApi {
  /** GET /api/public/v2/observations — cursor pages, newest first. */
  observationsV2(
    q: WindowQuery & { cursor?: string; fields: string; expandMetadata: string },
  ): Promise<{ data: LangfuseObservation[]; cursor?: string }>;
  /** GET /api/public/observations — page-based (page starts at 1). */
  observationsV1(q: WindowQuery & { page: number }): Promise<{ data: LangfuseObservation[]; totalPages: number }>;
  /** POST /api/public/scores. */
  createScore(body: ScoreBody): Promise<void>;
  /** GET /api/public/v3/scores — cursor pages; `names` comma-joined; asks for the subject and details groups. */
  scoresV3(
    q: ScoreQuery & { names: readonly string[]; cursor?: string },
  ): Promise<{ data: ScoreRead[]; cursor?: string }>;
  /** GET /api/public/v2/scores — page-based (page starts at 1), one name per request (servers without v3). */
  scoresV2(q: ScoreQuery & { name: string; page: number }): Promise<{ data: ScoreRead[]; totalPages: number }>;
}

export type HttpStatus = number | 'timeout' | 'network';

export class LangfuseHttpError extends Error {
  constructor(
    readonly status: HttpStatus,
    message: string,
    /** From Retry-After (seconds or an HTTP date), when the server sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'LangfuseHttpError';
  }

  /** 429, 408, 5xx, timeouts and network errors pass; anything else will not get better by waiting. */
  get retryable(): boolean {
    return typeof this.status === 'number' ? isRetryableStatus(this.status) : true;
  }
}

/** Whatever an API call threw, as a LangfuseHttpError (an unknown throw counts as a network error). */
export function toLangfuseError(err: unknown): LangfuseHttpError {
  return err instanceof LangfuseHttpError
    ? err
    : new LangfuseHttpError('network', String((err as Error)?.message ?? err));
}

/** Waits between attempts, for the pull and the score writes alike: 1 s, 2 s, 4 s … capped at a minute. */
export const LANGFUSE_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 60_000 };
