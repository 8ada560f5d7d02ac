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
  const out = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v === 'string' && v !== '' && out.size < MAX_REASONS) out.add(v.slice(0, MAX_REASON));
  };
  const a = span.attributes;
  const listed = a['gen_ai.response.finish_reasons'];
  if (Array.isArray(listed)) listed.forEach(add);
  else if (typeof listed === 'string') {
    const parsed = listed.startsWith('[') ? json(listed) : undefined;
    if (Array.isArray(parsed)) parsed.forEach(add);
    else add(listed);
  }
  add(str(a, 'ai.response.finishReason'));
  // The suffix first: one cheap compare per key instead of a regular expression (this runs for every
  // model span). Object.keys, not for…in: attribute objects have a null prototype (dictionary mode),
  // whose for…in costs about twice as much.
  for (const key of Object.keys(a)) if (key.endsWith(FINISH_SUFFIX) && INDEXED.test(key)) add(a[key]);
  const messages = jsonAttr(a, 'gen_ai.output.messages');
  if (Array.isArray(messages)) for (const m of messages) if (isRecord(m)) add(m['finish_reason']);
  for (const e of span.events) if (e.name === 'gen_ai.choice') add(e.attributes['finish_reason']);
  const output = jsonAttr(a, 'output.value');
  if (isRecord(output)) {
    add(output['finish_reason']);
    add(output['stop_reason']);
    for (const list of [output['choices'], output['candidates']])
      if (Array.isArray(list)) for (const c of list) if (isRecord(c)) add(c['finish_reason'] ?? c['finishReason']);
  }
  return [...out];
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
