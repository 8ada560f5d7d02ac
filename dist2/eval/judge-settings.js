/**
 * suite.yaml `judge:` — one judge for every candidate of a suite, recorded in the run manifest.
 * A judge that is one of the candidate models is refused (it would grade its own answers:
 * self-preference); one of the same family is allowed with a warning. The family is a documented
 * heuristic (README, "The judge in eval"): the vendor prefix of an OpenRouter-style id
 * (`anthropic/claude-…` → anthropic), else the first known name stem of the model id.
 */
import { durationSchema } from '../util/duration.js';
/** The prompt versions of the eval judge (decision prompt in judge-prompt.ts; trajectories use the production v1 file). */
export const JUDGE_GATE_NAMES = [
    'decision_pass_rate',
    'tool_selection_rate',
    'arguments_rate',
    'trajectory_pass_rate',
    'reached_goal_rate',
];
export const EVAL_JUDGE_PROMPT_VERSIONS = ['v1'];
export const judgeSettingsSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['model'],
    properties: {
        provider: { enum: ['openai'], default: 'openai' },
        model: { type: 'string', minLength: 1 },
        base_url: { type: 'string', pattern: '^https?://', default: 'https://api.openai.com/v1' },
        api_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
        prompt_version: { enum: [...EVAL_JUDGE_PROMPT_VERSIONS], default: 'v1' },
        temperature: { type: 'number', minimum: 0, maximum: 2, default: 0 },
        min_kappa: { type: 'number', minimum: -1, maximum: 1, default: 0.6 },
        min_labels: { type: 'integer', minimum: 1, default: 50 },
        timeout: { ...durationSchema, default: '60s' },
        max_retries: { type: 'integer', minimum: 0, maximum: 10, default: 3 },
        max_retry_wait: { ...durationSchema, default: '60s' },
        concurrency: { type: 'integer', minimum: 1, maximum: 64, default: 4 },
        price_per_million_input_tokens: { type: 'number', minimum: 0, default: 0 },
        price_per_million_output_tokens: { type: 'number', minimum: 0, default: 0 },
        gates: {
            type: 'object',
            additionalProperties: false,
            default: {},
            properties: Object.fromEntries(JUDGE_GATE_NAMES.map((g) => [g, { type: 'number', minimum: 0, maximum: 1 }])),
        },
    },
};
export function toJudgeSettings(f, ms) {
    return {
        provider: f.provider,
        model: f.model,
        baseUrl: f.base_url,
        ...(f.api_key_env ? { apiKeyEnv: f.api_key_env } : {}),
        promptVersion: f.prompt_version,
        temperature: f.temperature,
        minKappa: f.min_kappa,
        minLabels: f.min_labels,
        timeoutMs: ms(f.timeout),
        maxRetries: f.max_retries,
        maxRetryWaitMs: ms(f.max_retry_wait),
        concurrency: f.concurrency,
        price: { inputPerMillion: f.price_per_million_input_tokens, outputPerMillion: f.price_per_million_output_tokens },
        gates: { ...f.gates },
    };
}
/** Name stems → family, first match wins (checked against the id without its vendor prefix). */
const FAMILY_STEMS = [
    [/^(gpt|chatgpt|o\d|davinci|text-embedding)/, 'openai'],
    [/^claude/, 'anthropic'],
    [/^(gemini|gemma|palm)/, 'google'],
    [/^(llama|meta-llama)/, 'meta'],
    [/^(mistral|mixtral|codestral|ministral|magistral|devstral|pixtral)/, 'mistral'],
    [/^(qwen|qwq)/, 'qwen'],
    [/^deepseek/, 'deepseek'],
    [/^(kimi|moonshot)/, 'moonshot'],
    [/^grok/, 'xai'],
    [/^(command|aya)/, 'cohere'],
    [/^(glm|chatglm)/, 'zhipu'],
    [/^(phi)/, 'microsoft'],
];
const VENDOR_FAMILY = {
    openai: 'openai',
    anthropic: 'anthropic',
    google: 'google',
    'meta-llama': 'meta',
    mistralai: 'mistral',
    qwen: 'qwen',
    deepseek: 'deepseek',
    moonshotai: 'moonshot',
    'x-ai': 'xai',
    cohere: 'cohere',
    'z-ai': 'zhipu',
    microsoft: 'microsoft',
};
/** The id without a vendor prefix and an OpenRouter variant suffix (`:free`), lower case. */
export function bareModel(id) {
    const s = id.toLowerCase().trim();
    return s.slice(s.lastIndexOf('/') + 1).replace(/:[a-z0-9-]+$/, '');
}
/** The family of a model id, or undefined when the heuristic does not know it. */
export function modelFamily(id) {
    const s = id.toLowerCase().trim();
    const slash = s.indexOf('/');
    if (slash > 0) {
        const vendor = VENDOR_FAMILY[s.slice(0, slash)];
        if (vendor)
            return vendor;
    }
    const bare = bareModel(s);
    return FAMILY_STEMS.find(([re]) => re.test(bare))?.[1];
}
/** The judge against the candidates: the same model refused, the same family warned. */
export function checkJudgeAgainst(judgeModel, candidates) {
    const out = { refused: [], warnings: [] };
    const jb = bareModel(judgeModel);
    const jf = modelFamily(judgeModel);
    for (const c of candidates) {
        if (bareModel(c.model) === jb) {
            out.refused.push(`judge.model ${judgeModel} is the candidate ${c.label}: a model would grade its own answers (self-preference); use another judge`);
        }
        else if (jf && modelFamily(c.model) === jf) {
            out.warnings.push(`judge.model ${judgeModel} is of the same family (${jf}) as the candidate ${c.label}: its verdicts may favour it`);
        }
    }
    return out;
}
//# sourceMappingURL=judge-settings.js.map