import { durationMs, durationSchema as duration } from '../util/duration.js';
export const trajectoriesFileSchema = {
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
        idle: { ...duration, default: '1m' },
        max_traces: { type: 'integer', minimum: 1, default: 20_000 },
    },
};
export const trajectoriesSection = {
    key: 'trajectories',
    schema: trajectoriesFileSchema,
    build: (f) => ({ idleMs: durationMs(f.idle), maxTraces: f.max_traces }),
};
//# sourceMappingURL=config.js.map