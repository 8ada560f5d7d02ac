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
] as const;
export type JudgeGateName = (typeof JUDGE_GATE_NAMES)[number];

export const EVAL_JUDGE_PROMPT_VERSIONS = ['v1'] as const;

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
} as const;

export interface JudgeSettingsFile {
  provider: 'openai';
  model: string;
  base_url: string;
  api_key_env?: string;
  prompt_version: string;
  temperature: number;
  min_kappa: number;
  min_labels: number;
  timeout: string;
  max_retries: number;
  max_retry_wait: string;
  concurrency: number;
  price_per_million_input_tokens: number;
  price_per_million_output_tokens: number;
  gates: Partial<Record<JudgeGateName, number>>;
}

export interface EvalJudgeSettings {
  provider: 'openai';
  model: string;
  baseUrl: string;
  apiKeyEnv?: string;
  promptVersion: string;
  temperature: number;
  minKappa: number;
  minLabels: number;
  timeoutMs: number;
  maxRetries: number;
  maxRetryWaitMs: number;
  concurrency: number;
  price: { inputPerMillion: number; outputPerMillion: number };
  /** Minimum judge-based rates; applied only to calibrated rates. */
  gates: Partial<Record<JudgeGateName, number>>;
}

export function toJudgeSettings(f: JudgeSettingsFile, ms: (d: string) => number): EvalJudgeSettings {
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
const FAMILY_STEMS: [RegExp, string][] = [
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
const VENDOR_FAMILY: Record<string, string> = {
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
export function bareModel(id: string): string {
  const s = id.toLowerCase().trim();
  return s.slice(s.lastIndexOf('/') + 1).replace(/:[a-z0-9-]+$/, '');
}

/** The family of a model id, or undefined when the heuristic does not know it. */
export function modelFamily(id: string): string | undefined {
  const s = id.toLowerCase().trim();
  const slash = s.indexOf('/');
  if (slash > 0) {
    const vendor = VENDOR_FAMILY[s.slice(0, slash)];
    if (vendor) return vendor;
  }
  const bare = bareModel(s);
  return FAMILY_STEMS.find(([re]) => re.test(bare))?.[1];
}

export interface JudgeCheck {
  refused: string[];
  warnings: string[];
}

/** The judge against the candidates: the same model refused, the same family warned. */
export function checkJudgeAgainst(
  judgeModel: string,
  candidates: readonly { label: string; model: string }[],
): JudgeCheck {
  const out: JudgeCheck = { refused: [], warnings: [] };
  const jb = bareModel(judgeModel);
  const jf = modelFamily(judgeModel);
  for (const c of candidates) {
    if (bareModel(c.model) === jb) {
      out.refused.push(
        `judge.model ${judgeModel} is the candidate ${c.label}: a model would grade its own answers (self-preference); use another judge`,
      );
    } else if (jf && modelFamily(c.model) === jf) {
      out.warnings.push(
        `judge.model ${judgeModel} is of the same family (${jf}) as the candidate ${c.label}: its verdicts may favour it`,
      );
    }
  }
  return out;
}
