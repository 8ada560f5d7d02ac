/**
 * suite.yaml's schema (every key the loader accepts, with its default) and the file's shape as
 * Ajv leaves it after defaults. The README contract test reads the keys from here.
 */
import { PROVIDERS } from './adapters/index.js';
import { GATE_NAMES } from './gates.js';
import { judgeSettingsSchema } from './judge-settings.js';
import { similaritySchema } from './similarity-settings.js';
import { toolChoiceSchema } from './tool-choice.js';
const duration = { type: 'string', pattern: '^\\d+(\\.\\d+)?(ms|s|m|h|d)$' };
const rate = { type: ['number', 'null'], minimum: 0, maximum: 1 };
/** suite.yaml's schema (README, "A suite is a folder"). */
export const suiteSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['dataset_version'],
    properties: {
        name: { type: 'string', minLength: 1 },
        dataset_version: { type: ['string', 'number'] },
        models: {
            type: 'array',
            default: [],
            items: {
                type: 'object',
                additionalProperties: false,
                required: ['model'],
                properties: {
                    provider: { enum: [...PROVIDERS], default: 'openai' },
                    model: { type: 'string', minLength: 1 },
                    base_url: { type: 'string', pattern: '^https?://' },
                    api_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
                    label: { type: 'string', minLength: 1 },
                    params: { type: 'object' },
                    stream: { type: 'boolean' },
                },
            },
        },
        repeats: { type: 'integer', minimum: 1, maximum: 100, default: 1 },
        temperature: { type: 'number', minimum: 0, maximum: 2 },
        max_tokens: { type: 'integer', minimum: 1 },
        timeout: { ...duration, default: '60s' },
        concurrency: { type: 'integer', minimum: 1, maximum: 64, default: 1 },
        max_turns: { type: 'integer', minimum: 1, maximum: 20, default: 4 },
        max_retries: { type: 'integer', minimum: 0, maximum: 10, default: 3 },
        max_retry_wait: { ...duration, default: '60s' },
        clarification_pattern: { type: 'string', minLength: 1, default: '[?？]' },
        gates: {
            type: 'object',
            additionalProperties: false,
            default: {},
            properties: {
                ...Object.fromEntries(GATE_NAMES.map((g) => [g, rate])),
                max_drop_pp: { type: ['number', 'null'], minimum: 0, maximum: 100 },
            },
        },
        redact: {
            type: 'object',
            additionalProperties: false,
            default: {},
            properties: {
                fields: { type: 'array', items: { type: 'string' }, default: [] },
                patterns: { type: 'array', items: { type: 'string' }, default: [] },
            },
        },
        judge: judgeSettingsSchema,
        similarity: similaritySchema,
        tool_choice: toolChoiceSchema,
    },
};
//# sourceMappingURL=suite-schema.js.map