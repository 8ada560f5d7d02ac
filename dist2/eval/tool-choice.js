export const TOOL_CHOICE_PREFIX = 'tool_choice:';
export const toolChoiceSchema = {
    type: 'array',
    items: {
        oneOf: [
            { enum: ['required', 'none'] },
            {
                type: 'object',
                additionalProperties: false,
                required: ['name'],
                properties: { name: { type: 'string', minLength: 1 } },
            },
        ],
    },
};
export function variantOf(c) {
    return `${TOOL_CHOICE_PREFIX}${typeof c === 'string' ? c : c.name}`;
}
/** The forced choice of a variant (auto for core and compatibility). */
export function choiceOf(v) {
    if (!v.startsWith(TOOL_CHOICE_PREFIX))
        return 'auto';
    const x = v.slice(TOOL_CHOICE_PREFIX.length);
    return x === 'required' || x === 'none' ? x : { name: x };
}
/** OpenAI chat completions: "auto" | "required" | "none" | {type: "function", function: {name}}. */
export function openAIToolChoice(c) {
    return typeof c === 'string' ? c : { type: 'function', function: { name: c.name } };
}
/** Anthropic Messages: {type: auto} | {type: any} (must call some tool) | {type: none} | {type: tool, name}. */
export function anthropicToolChoice(c) {
    if (c === 'auto')
        return { type: 'auto' };
    if (c === 'required')
        return { type: 'any' };
    if (c === 'none')
        return { type: 'none' };
    return { type: 'tool', name: c.name };
}
//# sourceMappingURL=tool-choice.js.map