import { DEFAULT_TOOL_ERROR_RULES, parseToolErrorRule } from '../normalize/tool-error.js';
import { durationMs, durationSchema as duration } from '../util/duration.js';
const price = {
    type: 'object',
    additionalProperties: false,
    required: ['input', 'output'],
    properties: { input: { type: 'number', minimum: 0 }, output: { type: 'number', minimum: 0 } },
};
export const problemsFileSchema = {
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
        resolve_after: { ...duration, default: '24h' },
        max_per_service: { type: 'integer', minimum: 1, default: 500 },
        tool_error_rules: {
            type: 'array',
            maxItems: 32,
            items: { type: 'string', minLength: 1, maxLength: 200 },
            default: [...DEFAULT_TOOL_ERROR_RULES],
        },
        prices: { type: 'object', additionalProperties: price, default: {} },
    },
};
export const problemsSection = {
    key: 'problems',
    schema: problemsFileSchema,
    build: (f, _ctx, problems) => {
        const rules = [];
        for (const [i, text] of f.tool_error_rules.entries()) {
            const r = parseToolErrorRule(text);
            if (typeof r === 'string')
                problems.push(`problems.tool_error_rules[${i}]: ${r}`);
            else
                rules.push(r);
        }
        return {
            resolveAfterMs: durationMs(f.resolve_after),
            maxPerService: f.max_per_service,
            toolErrorRules: rules,
            prices: f.prices,
        };
    },
};
//# sourceMappingURL=config.js.map