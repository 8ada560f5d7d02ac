/**
 * tool_choice experiments (the provider-comparison article): suite.yaml `tool_choice: [required,
 * none, {name: TOOL}]` adds one variant per entry — `tool_choice:required`, `tool_choice:none`,
 * `tool_choice:TOOL` — run over the same cases and reported apart from the main comparison (which
 * is always `auto`), never gated with it. Each adapter maps the choice to its protocol's own
 * words; the forced choice applies to the first request of a conversation only (forcing every
 * turn would never let the model answer), later turns are `auto`.
 */
import type { Variant } from './suite.js';

export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

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
} as const;

export function variantOf(c: Exclude<ToolChoice, 'auto'>): Variant {
  return `${TOOL_CHOICE_PREFIX}${typeof c === 'string' ? c : c.name}`;
}

/** The forced choice of a variant (auto for core and compatibility). */
export function choiceOf(v: Variant): ToolChoice {
  if (!v.startsWith(TOOL_CHOICE_PREFIX)) return 'auto';
  const x = v.slice(TOOL_CHOICE_PREFIX.length);
  return x === 'required' || x === 'none' ? x : { name: x };
}

/** OpenAI chat completions: "auto" | "required" | "none" | {type: "function", function: {name}}. */
export function openAIToolChoice(c: ToolChoice): unknown {
  return typeof c === 'string' ? c : { type: 'function', function: { name: c.name } };
}

/** Anthropic Messages: {type: auto} | {type: any} (must call some tool) | {type: none} | {type: tool, name}. */
export function anthropicToolChoice(c: ToolChoice): unknown {
  if (c === 'auto') return { type: 'auto' };
  if (c === 'required') return { type: 'any' };
  if (c === 'none') return { type: 'none' };
  return { type: 'tool', name: c.name };
}
