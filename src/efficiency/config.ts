/** The `trajectories:` section: every trace followed to its end for the efficiency statistics. */
import type { FromSchema } from 'json-schema-to-ts';
import type { ConfigSection } from '../util/config-section.js';
import { durationMs, durationSchema as duration } from '../util/duration.js';

export const trajectoriesFileSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    idle: { ...duration, default: '1m' },
    max_traces: { type: 'integer', minimum: 1, default: 20_000 },
  },
} as const;

export type TrajectoriesFileShape = FromSchema<typeof trajectoriesFileSchema>;

export interface TrajectoriesConfig {
  idleMs: number;
  maxTraces: number;
}

export const trajectoriesSection: ConfigSection<TrajectoriesFileShape, TrajectoriesConfig> = {
  key: 'trajectories',
  schema: trajectoriesFileSchema,
  build: (f) => ({ idleMs: durationMs(f.idle), maxTraces: f.max_traces }),
};
