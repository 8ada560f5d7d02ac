/**
 * suite.yaml `similarity:` — the embeddings endpoint behind the `similar` argument match mode (an
 * OpenAI-compatible `POST {base_url}/embeddings`), its default threshold and price. A suite whose
 * cases use `similar` without it is refused at load; `judge` without suite.yaml `judge:` stays
 * pending (as `kind: judge` cases do).
 */
import { durationSchema } from '../util/duration.js';
export const similaritySchema = {
    type: 'object',
    additionalProperties: false,
    required: ['model'],
    properties: {
        model: { type: 'string', minLength: 1 },
        base_url: { type: 'string', pattern: '^https?://', default: 'https://api.openai.com/v1' },
        api_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
        threshold: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.85 },
        timeout: { ...durationSchema, default: '30s' },
        max_retries: { type: 'integer', minimum: 0, maximum: 10, default: 3 },
        price_per_million_input_tokens: { type: 'number', minimum: 0, default: 0 },
    },
};
export function toSimilaritySettings(f, ms) {
    return {
        model: f.model,
        baseUrl: f.base_url,
        ...(f.api_key_env ? { apiKeyEnv: f.api_key_env } : {}),
        threshold: f.threshold,
        timeoutMs: ms(f.timeout),
        maxRetries: f.max_retries,
        pricePerMillionInput: f.price_per_million_input_tokens,
    };
}
/** The argument match modes that ask someone (judge, similar) used by a case's expectation. */
export function askingModes(e) {
    const out = new Set();
    if (e.kind !== 'tool')
        return out;
    for (const call of e.calls)
        for (const c of call.args?.checks ?? [])
            if (c.mode === 'judge' || c.mode === 'similar')
                out.add(c.mode);
    return out;
}
export function similarityProblems(cases, s, at) {
    if (s)
        return [];
    const c = cases.find((x) => askingModes(x.expected).has('similar'));
    return c
        ? [
            `${at}: case ${JSON.stringify(c.id)} matches an argument by similar, but suite.yaml has no similarity: (embeddings endpoint)`,
        ]
        : [];
}
//# sourceMappingURL=similarity-settings.js.map