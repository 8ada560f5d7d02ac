/**
 * Does a span look like it is about a model or a tool? True when any attribute key is in a
 * namespace an LLM or agent instrumentation writes, or an event is a GenAI event. A span that
 * looks like one but yields no call is what the coverage report shows: the keys of the spans
 * toolwatch does not (yet) read.
 */
import type { Span } from '../model.js';

/** First key segments owned by LLM/agent instrumentations. */
const NAMESPACES: ReadonlySet<string> = new Set([
  'gen_ai', // OpenTelemetry GenAI (and most frameworks on top of it)
  'llm', // OpenInference, OpenLLMetry
  'ai', // Vercel AI SDK
  'openinference',
  'traceloop',
  'langfuse',
  'pydantic_ai',
  'flue',
  'mlflow',
  'logfire', // Pydantic Logfire's own spans around model calls
]);

/** Namespaces shared with non-LLM work, by the prefixes that are about models or tools only. */
const PREFIXES: readonly string[] = [
  'gcp.vertex.agent.',
  'lk.function_tool',
  'lk.pii.function_tool',
  'lk.response.',
  'lk.pii.response.',
  'lk.chat_ctx',
  'lk.pii.chat_ctx',
  'lk.llm_metrics',
];

const EXACT: ReadonlySet<string> = new Set(['model_request_parameters', 'all_messages_events']);

export function isLlmKey(key: string): boolean {
  const dot = key.indexOf('.');
  if (dot > 0 && NAMESPACES.has(key.slice(0, dot))) return true;
  if (EXACT.has(key)) return true;
  const c = key.charCodeAt(0);
  // Only keys starting with 'g' or 'l' can match a prefix: skip the loop for the rest.
  if (c !== 103 && c !== 108) return false;
  for (const p of PREFIXES) if (key.startsWith(p)) return true;
  return false;
}

export function looksLikeLlmSpan(span: Span): boolean {
  for (const k in span.attributes) if (isLlmKey(k)) return true;
  for (const e of span.events) if (e.name.startsWith('gen_ai.')) return true;
  return false;
}
