import { durationMs, durationSchema as duration } from '../../util/duration.js';
const posInt = { type: 'integer', minimum: 1 };
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
};
export const ingestSection = {
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
//# sourceMappingURL=config.js.map