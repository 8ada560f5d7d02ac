/**
 * The `changes:` section: what toolwatch versions from the spans it reads (src/changes/), and how
 * much history it keeps.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { ConfigSection } from '../util/config-section.js';
import { durationMs, durationSchema } from '../util/duration.js';
import type { ObserveLimits } from './observe.js';

export const changesFileSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    enabled: { type: 'boolean', default: true },
    max_events_per_service: { type: 'integer', minimum: 1, default: 1000 },
    max_tools_per_request: { type: 'integer', minimum: 1, default: 256 },
    attribution_window: { ...durationSchema, default: '6h' },
    attribution_p_value: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.01 },
  },
} as const;

export type ChangesFileShape = FromSchema<typeof changesFileSchema>;

export interface ChangesConfig {
  enabled: boolean;
  /** Change events kept per service, newest first; older ones are pruned hourly. */
  maxEventsPerService: number;
  limits: ObserveLimits;
  attribution: AttributionConfig;
}

/** How far before a failure began changes are looked for, and the p below which one is named. */
export interface AttributionConfig {
  windowMs: number;
  pValue: number;
}

export const DEFAULT_ATTRIBUTION: AttributionConfig = { windowMs: 6 * 3_600_000, pValue: 0.01 };

export function toChangesConfig(f: ChangesFileShape): ChangesConfig {
  return {
    enabled: f.enabled,
    maxEventsPerService: f.max_events_per_service,
    limits: { maxName: 200, maxToolsPerRequest: f.max_tools_per_request },
    attribution: { windowMs: durationMs(f.attribution_window), pValue: f.attribution_p_value },
  };
}

export const changesSection: ConfigSection<ChangesFileShape, ChangesConfig> = {
  key: 'changes',
  schema: changesFileSchema,
  build: (f) => toChangesConfig(f),
};
