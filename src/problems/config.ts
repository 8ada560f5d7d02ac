/** The `problems:` section: failed calls grouped by signature, and when a quiet one counts as resolved. */
import type { FromSchema } from 'json-schema-to-ts';
import type { ConfigSection } from '../util/config-section.js';
import { durationMs, durationSchema as duration } from '../util/duration.js';

export const problemsFileSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    resolve_after: { ...duration, default: '24h' },
    max_per_service: { type: 'integer', minimum: 1, default: 500 },
  },
} as const;

export type ProblemsFileShape = FromSchema<typeof problemsFileSchema>;

export interface ProblemsConfig {
  resolveAfterMs: number;
  maxPerService: number;
}

export const problemsSection: ConfigSection<ProblemsFileShape, ProblemsConfig> = {
  key: 'problems',
  schema: problemsFileSchema,
  build: (f) => ({ resolveAfterMs: durationMs(f.resolve_after), maxPerService: f.max_per_service }),
};
