/**
 * The `judge:` section of the config file: its schema, the typed form derived from it and the checks
 * a schema cannot express (run in the config phase with every other problem). The API key comes
 * from the environment the loader hands in (JUDGE_API_KEY), never from the file.
 */
import cron from 'node-cron';
import type { FromSchema } from 'json-schema-to-ts';
import type { ConfigSection } from '../util/config-section.js';
import { durationMs, durationSchema as duration } from '../util/duration.js';
import { loadPrompt } from './prompt-file.js';

const rate = { type: 'number', minimum: 0, maximum: 1 } as const;
const posInt = { type: 'integer', minimum: 1 } as const;
const nonNeg = { type: 'number', minimum: 0 } as const;

export const judgeFileSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    // Off by default: when on, redacted trajectories leave the process for a third-party model.
    enabled: { type: 'boolean', default: false },
    project: { type: 'string', minLength: 1, default: 'default' },
    sample_rate: { ...rate, default: 0.02 },
    service_rates: { type: 'object', additionalProperties: rate, default: {} },
    failed_rate: rate,
    // Negative user feedback is the strongest signal there is, but every trace below the highest rate is a
    // candidate whose steps are written at ingest: at 1 that is every trace (≈ 1.8× ingest's CPU per batch
    // in the bench), at 0.2 a fifth (≈ 1.2×; docs/judge.md, "What candidates cost"). Weighted 1/p, unbiased.
    feedback_rate: { ...rate, default: 0.2 },
    idle: { ...duration, default: '5m' },
    schedule: { type: 'string', minLength: 1, default: '0 * * * *' },
    base_url: { type: 'string', minLength: 1, default: 'https://api.openai.com/v1' },
    model: { type: 'string', default: '' },
    timeout: { ...duration, default: '60s' },
    max_retries: { type: 'integer', minimum: 0, maximum: 10, default: 3 },
    max_retry_wait: { ...duration, default: '60s' },
    max_trajectories_per_run: { ...posInt, default: 100 },
    max_tokens_per_run: { ...posInt, default: 1_000_000 },
    max_cost_per_run: { ...nonNeg, default: 5 },
    price_per_million_input_tokens: { ...nonNeg, default: 0 },
    price_per_million_output_tokens: { ...nonNeg, default: 0 },
    concurrency: { type: 'integer', minimum: 1, maximum: 64, default: 4 },
    min_kappa: { type: 'number', minimum: -1, maximum: 1, default: 0.6 },
    min_labels: { ...posInt, default: 50 },
    redact: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        fields: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
        patterns: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
      },
    },
  },
} as const;

export type JudgeFileShape = FromSchema<typeof judgeFileSchema>;

export interface JudgeConfig {
  enabled: boolean;
  project: string;
  sampleRate: number;
  serviceRates: Record<string, number>;
  /** undefined = no separate rate for trajectories with structural failures. */
  failedRate?: number;
  /** Rate for trajectories with negative user feedback (default 0.2; 1: always judged); 0 turns the stratum off. */
  feedbackRate: number;
  idleMs: number;
  schedule: string;
  baseUrl: string;
  model: string;
  /** From env JUDGE_API_KEY only (secrets never live in the file). */
  apiKey?: string;
  timeoutMs: number;
  maxRetries: number;
  maxRetryWaitMs: number;
  caps: { trajectories: number; tokens: number; cost: number };
  price: { inputPerMillion: number; outputPerMillion: number };
  concurrency: number;
  minKappa: number;
  minLabels: number;
  redact: { fields: string[]; patterns: string[] };
}

export function toJudgeConfig(f: JudgeFileShape): JudgeConfig {
  return {
    enabled: f.enabled,
    project: f.project,
    sampleRate: f.sample_rate,
    serviceRates: { ...f.service_rates },
    ...(f.failed_rate !== undefined ? { failedRate: f.failed_rate } : {}),
    feedbackRate: f.feedback_rate,
    idleMs: durationMs(f.idle),
    schedule: f.schedule,
    baseUrl: f.base_url,
    model: f.model,
    timeoutMs: durationMs(f.timeout),
    maxRetries: f.max_retries,
    maxRetryWaitMs: durationMs(f.max_retry_wait),
    caps: { trajectories: f.max_trajectories_per_run, tokens: f.max_tokens_per_run, cost: f.max_cost_per_run },
    price: { inputPerMillion: f.price_per_million_input_tokens, outputPerMillion: f.price_per_million_output_tokens },
    concurrency: f.concurrency,
    minKappa: f.min_kappa,
    minLabels: f.min_labels,
    redact: { fields: [...f.redact.fields], patterns: [...f.redact.patterns] },
  };
}

/** Problems with a judge config that the schema cannot express. */
export function checkJudgeConfig(cfg: JudgeConfig): string[] {
  const problems: string[] = [];
  if (cfg.enabled && !cfg.model) problems.push('judge.model: required when judge.enabled is true');
  // The judge waits this long after a trace's last span; 0 would judge trajectories still running.
  if (cfg.idleMs <= 0) problems.push('judge.idle: must be longer than 0s');
  for (const p of cfg.redact.patterns) {
    try {
      new RegExp(p, 'g');
    } catch (err) {
      problems.push(
        `judge.redact.patterns: ${JSON.stringify(p)} is not a valid regular expression (${(err as Error).message})`,
      );
    }
  }
  if (!cron.validate(cfg.schedule))
    problems.push(`judge.schedule: not a cron expression: ${JSON.stringify(cfg.schedule)}`);
  try {
    loadPrompt();
  } catch (err) {
    problems.push(`judge prompt: ${(err as Error).message}`);
  }
  return problems;
}

/** The API key is a secret: it comes from the environment only, never from the file. */
export const judgeSection: ConfigSection<JudgeFileShape, JudgeConfig> = {
  key: 'judge',
  schema: judgeFileSchema,
  env: { names: ['JUDGE_API_KEY'] },
  build(f, ctx, problems) {
    const judge = { ...toJudgeConfig(f), ...(ctx.env.JUDGE_API_KEY ? { apiKey: ctx.env.JUDGE_API_KEY } : {}) };
    problems.push(...checkJudgeConfig(judge));
    return judge;
  },
};
