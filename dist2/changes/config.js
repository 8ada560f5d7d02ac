import { durationMs, durationSchema } from '../util/duration.js';
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
};
export const DEFAULT_ATTRIBUTION = { windowMs: 6 * 3_600_000, pValue: 0.01 };
export function toChangesConfig(f) {
    return {
        enabled: f.enabled,
        maxEventsPerService: f.max_events_per_service,
        limits: { maxName: 200, maxToolsPerRequest: f.max_tools_per_request },
        attribution: { windowMs: durationMs(f.attribution_window), pValue: f.attribution_p_value },
    };
}
export const changesSection = {
    key: 'changes',
    schema: changesFileSchema,
    build: (f) => toChangesConfig(f),
};
//# sourceMappingURL=config.js.map