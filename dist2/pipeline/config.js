import { durationMs, durationSchema as duration } from '../util/duration.js';
const posInt = { type: 'integer', minimum: 1 };
export const dedupeFileSchema = {
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
        max_traces: { ...posInt, default: 200_000 },
        max_calls_per_trace: { ...posInt, default: 1_000 },
        trace_ttl: { ...duration, default: '1h' },
        execution_grace: { ...duration, default: '10s' },
        pending_lease: { ...duration, default: '30s' },
        status_grace: { ...duration, default: '2s' },
    },
};
export const dedupeSection = {
    key: 'dedupe',
    schema: dedupeFileSchema,
    build(f, _ctx, problems) {
        // Renewed every third of it: a lease shorter than a second would be renewed faster than a store answers.
        if (durationMs(f.pending_lease) < 1000)
            problems.push('dedupe.pending_lease: must be at least 1s');
        return {
            maxTraces: f.max_traces,
            maxCallsPerTrace: f.max_calls_per_trace,
            traceTtlMs: durationMs(f.trace_ttl),
            executionGraceMs: durationMs(f.execution_grace),
            pendingLeaseMs: durationMs(f.pending_lease),
            statusGraceMs: durationMs(f.status_grace),
        };
    },
};
//# sourceMappingURL=config.js.map