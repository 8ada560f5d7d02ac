/** The `metrics:` section: how many distinct label values a metric keeps, in all and per ingest token. */
import type { FromSchema } from 'json-schema-to-ts';
import type { ConfigSection } from '../util/config-section.js';

export const metricsFileSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    max_label_values: { type: 'integer', minimum: 1, default: 500 },
    max_label_values_per_token: { type: 'integer', minimum: 1, default: 100 },
  },
} as const;

export type MetricsFileShape = FromSchema<typeof metricsFileSchema>;

export interface MetricsConfig {
  maxLabelValues: number;
  maxLabelValuesPerToken: number;
}

export const metricsSection: ConfigSection<MetricsFileShape, MetricsConfig> = {
  key: 'metrics',
  schema: metricsFileSchema,
  build: (f) => ({ maxLabelValues: f.max_label_values, maxLabelValuesPerToken: f.max_label_values_per_token }),
};
