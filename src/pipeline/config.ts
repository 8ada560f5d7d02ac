/**
 * The `dedupe:` section: the memory that makes one call one count — traces and calls per trace
 * remembered, how long, and the graces a call waits for its execution and status spans.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { ConfigSection } from '../util/config-section.js';
import { durationMs, durationSchema as duration } from '../util/duration.js';

const posInt = { type: 'integer', minimum: 1 } as const;

export const dedupeFileSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    max_traces: { ...posInt, default: 20_000 },
    max_calls_per_trace: { ...posInt, default: 1_000 },
    trace_ttl: { ...duration, default: '1h' },
    execution_grace: { ...duration, default: '10s' },
    pending_lease: { ...duration, default: '30s' },
    status_grace: { ...duration, default: '2s' },
  },
} as const;

export type DedupeFileShape = FromSchema<typeof dedupeFileSchema>;

export interface DedupeConfig {
  maxTraces: number;
  maxCallsPerTrace: number;
  traceTtlMs: number;
  executionGraceMs: number;
  pendingLeaseMs: number;
  statusGraceMs: number;
}

export const dedupeSection: ConfigSection<DedupeFileShape, DedupeConfig> = {
  key: 'dedupe',
  schema: dedupeFileSchema,
  build(f, _ctx, problems) {
    // Renewed every third of it: a lease shorter than a second would be renewed faster than a store answers.
    if (durationMs(f.pending_lease) < 1000) problems.push('dedupe.pending_lease: must be at least 1s');
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
