/**
 * The `changes:` section: what toolwatch versions from the spans it reads (src/changes/), and how
 * much history it keeps.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { ConfigSection } from '../util/config-section.js';
import type { ObserveLimits } from './observe.js';

export const changesFileSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    enabled: { type: 'boolean', default: true },
    max_events_per_service: { type: 'integer', minimum: 1, default: 1000 },
    max_tools_per_request: { type: 'integer', minimum: 1, default: 256 },
  },
} as const;

export type ChangesFileShape = FromSchema<typeof changesFileSchema>;

export interface ChangesConfig {
  enabled: boolean;
  /** Change events kept per service, newest first; older ones are pruned hourly. */
  maxEventsPerService: number;
  limits: ObserveLimits;
}

export function toChangesConfig(f: ChangesFileShape): ChangesConfig {
  return {
    enabled: f.enabled,
    maxEventsPerService: f.max_events_per_service,
    limits: { maxName: 200, maxToolsPerRequest: f.max_tools_per_request },
  };
}

export const changesSection: ConfigSection<ChangesFileShape, ChangesConfig> = {
  key: 'changes',
  schema: changesFileSchema,
  build: (f) => toChangesConfig(f),
};
