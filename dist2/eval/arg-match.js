/**
 * The questions behind the `judge` and `similar` argument match modes, and their cache keys. Pure.
 *
 * judge: the eval judge (suite.yaml `judge:`) is asked whether the model's value of one argument
 * means the same as the expected one, given the user's request, the system prompt and the tool's
 * definition; verdict {same, reasoning}; versioned with judge.prompt_version; redacted as every
 * judge request is. The key hashes (prompt version, judge model, messages), so a rerun or a second
 * candidate with the same value pays nothing.
 *
 * similar: both values as text (strings as they are, anything else as JSON) are embedded by the
 * suite's embeddings endpoint (suite.yaml `similarity:`); the match is cosine similarity ≥ the
 * threshold. Each text is embedded once (cached by model and text).
 */
import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';
import { extractJson } from '../judge/verdict.js';
const ARG_SCHEMA = {
    type: 'object',
    additionalProperties: false,
    required: ['same', 'reasoning'],
    properties: {
        same: {
            type: 'boolean',
            description: "Does the model's value mean what the expected value means, for this request?",
        },
        reasoning: { type: 'string', description: 'One or two sentences.' },
    },
};
const validate = new Ajv({ allErrors: true, strict: true }).compile({
    ...ARG_SCHEMA,
    properties: { same: { type: 'boolean' }, reasoning: { type: 'string', maxLength: 20_000 } },
});
export const ARG_CONTRACT = {
    name: 'argument_verdict',
    schema: ARG_SCHEMA,
    parse(text) {
        const json = extractJson(text);
        if (json === undefined)
            return { ok: false, error: 'the answer holds no JSON object' };
        if (validate(json))
            return { ok: true, value: json };
        return {
            ok: false,
            error: (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; '),
        };
    },
};
const ARG_PROMPTS = {
    v1: `You are an evaluator of an AI model's tool use. You judge ONE argument value of ONE tool call:
does the value the model sent mean the same as the expected value, for what the user asked? Different
wording, order, abbreviations or synonyms that ask for the same thing are the same; a value that
narrows, widens or changes what is asked for (another entity, date, amount, a search that would find
something else) is not. Judge only this argument, not the rest of the call.

Masked values such as [EMAIL], [PHONE], [CARD], [SECRET] and [REDACTED] were removed for privacy;
treat them as valid values.

Reply with only a JSON object, no other text:
{"same": true|false, "reasoning": "<one or two sentences>"}`,
};
export const ARG_PROMPT_VERSIONS = Object.keys(ARG_PROMPTS);
const asText = (v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));
/** The judge's messages for one argument, redacted, with their cache key. Throws when redaction fails. */
export function argQuestion(i) {
    const prompt = ARG_PROMPTS[i.promptVersion];
    if (!prompt)
        throw new Error(`judge.prompt_version ${i.promptVersion}: no argument prompt`);
    const r = i.redactor;
    const def = i.offered.find((t) => t.name === i.tool);
    const conversation = i.c.messages
        .filter((m) => m.role === 'user' || m.role === 'assistant')
        .map((m) => `${m.role.toUpperCase()}: ${m.content ?? ''}`)
        .join('\n');
    const user = [
        `SYSTEM PROMPT OF THE MODEL:\n${i.system ? i.system : '(none)'}`,
        `CONVERSATION:\n${conversation}`,
        `THE TOOL:\n- ${i.tool}: ${def?.description ?? '(no description)'}\n  parameters: ${def?.parameters === undefined ? '(no schema)' : JSON.stringify(def.parameters)}`,
        `THE ARGUMENT: ${i.key}`,
        `EXPECTED VALUE: ${asText(i.expected)}`,
        `THE MODEL'S VALUE: ${asText(i.actual)}`,
    ].join('\n\n');
    const messages = [
        { role: 'system', content: prompt },
        { role: 'user', content: r.text(user) },
    ];
    const hash = createHash('sha256')
        .update(JSON.stringify({ scope: 'argument', model: i.judgeModel, prompt: i.promptVersion, messages }))
        .digest('hex');
    return { messages, hash };
}
/** What `similar` embeds for a value: a string as it is, anything else as its JSON. */
export const embeddingText = asText;
export function embeddingKey(model, text) {
    return createHash('sha256').update(`${model}\u0000${text}`).digest('hex');
}
/** Cosine similarity of two vectors (0 when either is all zeros or their lengths differ). */
export function cosine(a, b) {
    if (a.length !== b.length || a.length === 0)
        return 0;
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let i = 0; i < a.length; i++) {
        dot += a[i] * b[i];
        na += a[i] * a[i];
        nb += b[i] * b[i];
    }
    return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
//# sourceMappingURL=arg-match.js.map