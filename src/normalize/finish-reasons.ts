/**
 * The finish reasons of a model span, whatever dialect wrote them, so an InvalidJson call proposed by a
 * response cut at its token limit is told apart (`truncated`) from a model that wrote bad JSON. Read for
 * every reader alike by the registry (one place, not one per dialect):
 *
 * - OpenTelemetry GenAI: `gen_ai.response.finish_reasons` (a string array, or its JSON), and the
 *   `finish_reason` of each `gen_ai.output.messages` entry;
 * - deprecated GenAI events: `gen_ai.choice` events' `finish_reason` attribute;
 * - OpenLLMetry: `gen_ai.completion.N.finish_reason` / `llm.completions.N.finish_reason`;
 * - Vercel AI SDK: `ai.response.finishReason`;
 * - OpenInference: the raw response in `output.value` (JSON): its `finish_reason` / `stop_reason`,
 *   `choices[].finish_reason` (OpenAI), `candidates[].finishReason` (Gemini).
 *
 * Bounded: at most 16 reasons of at most 64 characters; JSON over 256 KiB is not parsed for them.
 */
import type { AttrObject, Span, SpanFacts } from '../model.js';
import { isRecord, parseJson, str, takeJsonValue } from '../util/values.js';

const MAX_REASONS = 16;
const MAX_REASON = 64;
const MAX_JSON = 256 * 1024;
const INDEXED = /^(?:gen_ai\.completion|llm\.completions)\.\d+\.finish_reason$/;
const FINISH_SUFFIX = '.finish_reason';

/** Sets `f.finishReasons` when the span reports any. */
export function setFinishReasons(f: SpanFacts, span: Span): void {
  const reasons = finishReasonsOf(span);
  if (reasons.length > 0) f.finishReasons = reasons;
}

export function finishReasonsOf(span: Span): string[] {
  // An array, not a Set: at most 16 short strings, and this runs for every model span with calls.
  const out: string[] = [];
  const a = span.attributes;
  const listed = a['gen_ai.response.finish_reasons'];
  if (Array.isArray(listed)) for (const v of listed) add(out, v);
  else if (typeof listed === 'string') {
    const parsed = listed.startsWith('[') ? json(listed) : undefined;
    if (Array.isArray(parsed)) for (const v of parsed) add(out, v);
    else add(out, listed);
  }
  add(out, str(a, 'ai.response.finishReason'));
  // The suffix first: one cheap compare per key instead of a regular expression. for…in, not
  // Object.keys: an attribute object in fast mode walks its enum cache without allocating a copy.
  for (const key in a) if (key.endsWith(FINISH_SUFFIX) && INDEXED.test(key)) add(out, a[key]);
  const messages = jsonAttr(a, 'gen_ai.output.messages');
  if (Array.isArray(messages)) for (const m of messages) if (isRecord(m)) add(out, m['finish_reason']);
  for (const e of span.events) if (e.name === 'gen_ai.choice') add(out, e.attributes['finish_reason']);
  const output = jsonAttr(a, 'output.value');
  if (isRecord(output)) {
    add(out, output['finish_reason']);
    add(out, output['stop_reason']);
    for (const list of [output['choices'], output['candidates']])
      if (Array.isArray(list)) for (const c of list) if (isRecord(c)) add(out, c['finish_reason'] ?? c['finishReason']);
  }
  return out;
}

/** Adds a reason once, in the order first seen, up to MAX_REASONS. */
function add(out: string[], v: unknown): void {
  if (typeof v !== 'string' || v === '' || out.length >= MAX_REASONS) return;
  const reason = v.slice(0, MAX_REASON);
  if (!out.includes(reason)) out.push(reason);
}

function jsonAttr(a: AttrObject, key: string): unknown {
  const v = a[key];
  // The reader has just parsed the model output (genai.ts): that parse, not a second one.
  if (typeof v === 'string')
    return v.length <= MAX_JSON ? (takeJsonValue(v) ?? { value: parseJson(v) }).value : undefined;
  return Array.isArray(v) || isRecord(v) ? v : undefined;
}

function json(s: string): unknown {
  return s.length <= MAX_JSON ? parseJson(s) : undefined;
}
