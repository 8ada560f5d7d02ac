/**
 * The `ingest:` section: what one OTLP batch may be (body size, attribute depth) and the bounds the
 * receivers shed load by (pending and concurrent batches, event-loop delay, slow bodies, one token's
 * share) — past each the answer is 503 or 408 with Retry-After, never an unbounded wait.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { ConfigSection } from '../../util/config-section.js';
import { durationMs, durationSchema as duration } from '../../util/duration.js';

const posInt = { type: 'integer', minimum: 1 } as const;

export const ingestFileSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    max_body_bytes: { ...posInt, default: 8 * 1024 * 1024 },
    max_pending_batches: { ...posInt, default: 256 },
    retry_after_seconds: { ...posInt, default: 1 },
    max_attribute_depth: { type: 'integer', minimum: 2, maximum: 256, default: 32 },
    max_inflight_requests: { type: 'integer', minimum: 0, default: 1024 },
    max_event_loop_delay: { ...duration, default: '250ms' },
    body_timeout: { ...duration, default: '30s' },
    min_body_rate: { type: 'integer', minimum: 0, default: 1024 },
    max_inflight_share: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.5 },
    max_concurrent_batches: { type: 'integer', minimum: 0, default: 64 },
    max_queue_delay: { ...duration, default: '2s' },
  },
} as const;

export type IngestFileShape = FromSchema<typeof ingestFileSchema>;

export interface IngestConfig {
  /** Applies to the body as sent and again after gunzip. */
  maxBodyBytes: number;
  /** Batches waiting for the store; past this the receiver answers 503 + Retry-After. */
  maxPendingBatches: number;
  retryAfterSeconds: number;
  maxAttributeDepth: number;
  /** Batches in flight at once; past this the receiver answers 503 + Retry-After (0 = no limit). */
  maxInflightRequests: number;
  /** Smoothed event-loop delay past which new batches get 503 + Retry-After (0 = never). */
  maxEventLoopDelayMs: number;
  /** A batch's body must be in within this, or 408 (0 = no deadline). */
  bodyTimeoutMs: number;
  /** A body arriving slower than this on average (after its first second) gets 408; 0 = any rate. */
  minBodyBytesPerSecond: number;
  /** The share of max_inflight_requests one token's open batches may take (bodies being read included). */
  maxInflightShare: number;
  /** Batches decoded and recorded at once; the rest wait their turn (0 = no limit). */
  maxConcurrentBatches: number;
  /** A batch that waited this long for its turn gets 503 + Retry-After (0 = never). */
  maxQueueDelayMs: number;
}

export const ingestSection: ConfigSection<IngestFileShape, IngestConfig> = {
  key: 'ingest',
  schema: ingestFileSchema,
  build: (f) => ({
    maxBodyBytes: f.max_body_bytes,
    maxPendingBatches: f.max_pending_batches,
    retryAfterSeconds: f.retry_after_seconds,
    maxAttributeDepth: f.max_attribute_depth,
    maxInflightRequests: f.max_inflight_requests,
    maxEventLoopDelayMs: durationMs(f.max_event_loop_delay),
    bodyTimeoutMs: durationMs(f.body_timeout),
    minBodyBytesPerSecond: f.min_body_rate,
    maxInflightShare: f.max_inflight_share,
    maxConcurrentBatches: f.max_concurrent_batches,
    maxQueueDelayMs: durationMs(f.max_queue_delay),
  }),
};
