/**
 * The `problems:` section: failed calls grouped by signature, how often a problem's latest example is
 * refreshed, when a quiet one counts as resolved, which tool results report a failure inside a success
 * (`tool_error`), and the price table that turns a problem's repair tokens into money.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { DEFAULT_TOOL_ERROR_RULES, parseToolErrorRule, type ToolErrorRule } from '../normalize/tool-error.js';
import type { ConfigSection } from '../util/config-section.js';
import { durationMs, durationSchema as duration } from '../util/duration.js';
import type { PriceTable } from './cost.js';

const price = {
  type: 'object',
  additionalProperties: false,
  required: ['input', 'output'],
  properties: { input: { type: 'number', minimum: 0 }, output: { type: 'number', minimum: 0 } },
} as const;

export const problemsFileSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    resolve_after: { ...duration, default: '24h' },
    max_per_service: { type: 'integer', minimum: 1, default: 500 },
    latest_example_every: { ...duration, default: '1m' },
    tool_error_rules: {
      type: 'array',
      maxItems: 32,
      items: { type: 'string', minLength: 1, maxLength: 200 },
      default: [...DEFAULT_TOOL_ERROR_RULES],
    },
    prices: { type: 'object', additionalProperties: price, default: {} },
  },
} as const;

export type ProblemsFileShape = FromSchema<typeof problemsFileSchema>;

export interface ProblemsConfig {
  resolveAfterMs: number;
  maxPerService: number;
  /** A problem's `latest` example is replaced by a sighting at least this much newer (span time; 0: any newer). */
  latestExampleEveryMs: number;
  /** Which results of a tool span that says it succeeded make the execution `tool_error`. */
  toolErrorRules: readonly ToolErrorRule[];
  /** USD per million input and output tokens, per model label (`*`: any other). */
  prices: PriceTable;
}

export const problemsSection: ConfigSection<ProblemsFileShape, ProblemsConfig> = {
  key: 'problems',
  schema: problemsFileSchema,
  build: (f, _ctx, problems) => {
    const rules: ToolErrorRule[] = [];
    for (const [i, text] of f.tool_error_rules.entries()) {
      const r = parseToolErrorRule(text);
      if (typeof r === 'string') problems.push(`problems.tool_error_rules[${i}]: ${r}`);
      else rules.push(r);
    }
    return {
      resolveAfterMs: durationMs(f.resolve_after),
      maxPerService: f.max_per_service,
      latestExampleEveryMs: durationMs(f.latest_example_every),
      toolErrorRules: rules,
      prices: f.prices,
    };
  },
};
