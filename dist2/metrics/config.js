export const metricsFileSchema = {
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
        max_label_values: { type: 'integer', minimum: 1, default: 500 },
        max_label_values_per_token: { type: 'integer', minimum: 1, default: 100 },
    },
};
export const metricsSection = {
    key: 'metrics',
    schema: metricsFileSchema,
    build: (f) => ({ maxLabelValues: f.max_label_values, maxLabelValuesPerToken: f.max_label_values_per_token }),
};
//# sourceMappingURL=config.js.map