/**
 * The verdict contract: the JSON Schema sent as the strict structured-output format, the Ajv
 * validator that checks every answer (servers without structured output, or that ignore it), and
 * JSON-from-text extraction for the fallback path. Pure.
 */
import { Ajv } from 'ajv';
/**
 * Sent with response_format json_schema (strict). Strict mode wants every property required and
 * no additional ones; `minimum` is left to our own validation because not every server's strict
 * mode accepts numeric bounds.
 */
export const VERDICT_RESPONSE_SCHEMA = {
    type: 'object',
    additionalProperties: false,
    required: ['reached_goal', 'unnecessary_calls', 'dangerous_calls', 'reasoning'],
    properties: {
        reached_goal: { type: 'boolean', description: 'Did the agent accomplish the user task?' },
        unnecessary_calls: { type: 'integer', description: 'Tool calls that did nothing for the goal (>= 0).' },
        dangerous_calls: { type: 'integer', description: 'Calls with side effects that should not have happened (>= 0).' },
        reasoning: { type: 'string', description: 'Two or three sentences.' },
    },
};
const verdictSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['reached_goal', 'unnecessary_calls', 'dangerous_calls', 'reasoning'],
    properties: {
        reached_goal: { type: 'boolean' },
        unnecessary_calls: { type: 'integer', minimum: 0 },
        dangerous_calls: { type: 'integer', minimum: 0 },
        reasoning: { type: 'string', maxLength: 20_000 },
    },
};
const labelSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['trace_id', 'reached_goal', 'unnecessary_calls', 'dangerous_calls'],
    properties: {
        trace_id: { type: 'string', pattern: '^[0-9a-fA-F]{32}$' },
        reached_goal: { type: 'boolean' },
        unnecessary_calls: { type: 'integer', minimum: 0 },
        dangerous_calls: { type: 'integer', minimum: 0 },
        labeler: { type: 'string', maxLength: 200 },
        note: { type: 'string', maxLength: 10_000 },
    },
};
// No coercion, no defaults, no removal: an answer is valid as sent or not at all.
const ajv = new Ajv({ allErrors: true, strict: true });
const validateVerdict = ajv.compile(verdictSchema);
const validateLabel = ajv.compile(labelSchema);
function explain(errors) {
    return (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join('; ');
}
export function checkVerdict(value) {
    return validateVerdict(value) ? { ok: true, value } : { ok: false, error: explain(validateVerdict.errors) };
}
export function checkLabel(value) {
    return validateLabel(value) ? { ok: true, value } : { ok: false, error: explain(validateLabel.errors) };
}
/**
 * The JSON object in a model's text: the whole text, a ```json fence, or the outermost {...}.
 * Returns undefined when none parses.
 */
export function extractJson(text) {
    const tries = [text.trim()];
    const fence = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(text);
    if (fence)
        tries.push(fence[1].trim());
    const first = text.indexOf('{');
    const last = text.lastIndexOf('}');
    if (first >= 0 && last > first)
        tries.push(text.slice(first, last + 1));
    for (const t of tries) {
        try {
            return JSON.parse(t);
        }
        catch {
            // try the next reading
        }
    }
    return undefined;
}
/** Parses and validates an answer text. */
export function parseVerdict(text) {
    const json = extractJson(text);
    if (json === undefined)
        return { ok: false, error: 'the answer holds no JSON object' };
    return checkVerdict(json);
}
//# sourceMappingURL=verdict.js.map