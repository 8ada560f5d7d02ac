/**
 * The checker's two sections: `tools:` (tool-definition files, each for one service or all, read
 * here once so a bad one is reported with every other problem; the services read them again) and
 * `check:` (what checking may cost per call, per batch and per ingest token: src/check/budget.ts).
 */
import path from 'node:path';
import { durationMs, durationSchema as duration } from '../util/duration.js';
import { DEFAULT_CHECK_LIMITS as CHECK } from './budget.js';
import { loadToolRegistry } from './registry.js';
const posInt = { type: 'integer', minimum: 1 };
export const toolsFileSchema = {
    type: 'array',
    default: [],
    items: {
        type: 'object',
        additionalProperties: false,
        required: ['path'],
        properties: { service: { type: 'string', minLength: 1 }, path: { type: 'string', minLength: 1 } },
    },
};
export const toolsSection = {
    key: 'tools',
    schema: toolsFileSchema,
    build(f, ctx, problems) {
        const tools = f.map((t) => ({
            ...(t.service ? { service: t.service } : {}),
            path: path.resolve(ctx.baseDir, t.path),
        }));
        const loaded = loadToolRegistry(tools);
        if (!loaded.ok)
            problems.push(...loaded.problems);
        return tools;
    },
};
export const checkFileSchema = {
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
        max_argument_bytes: { ...posInt, default: CHECK.maxArgumentBytes },
        max_argument_depth: { type: 'integer', minimum: 2, maximum: 1000, default: CHECK.maxArgumentDepth },
        compile_bytes_per_batch: { ...posInt, default: CHECK.compileBytesPerBatch },
        compile_bytes_per_token_per_minute: { ...posInt, default: CHECK.compileBytesPerTokenPerMinute },
        validation_time_per_batch: { ...duration, default: `${CHECK.validationTimePerBatchMs}ms` },
    },
};
export const checkSection = {
    key: 'check',
    schema: checkFileSchema,
    build(f, _ctx, problems) {
        if (f.compile_bytes_per_token_per_minute < f.compile_bytes_per_batch) {
            // A schema the batch bound admits but the bucket can never hold would never be compiled.
            problems.push('check.compile_bytes_per_token_per_minute: must be at least check.compile_bytes_per_batch');
        }
        return {
            maxArgumentBytes: f.max_argument_bytes,
            maxArgumentDepth: f.max_argument_depth,
            compileBytesPerBatch: f.compile_bytes_per_batch,
            compileBytesPerTokenPerMinute: f.compile_bytes_per_token_per_minute,
            validationTimePerBatchMs: durationMs(f.validation_time_per_batch),
        };
    },
};
//# sourceMappingURL=config.js.map