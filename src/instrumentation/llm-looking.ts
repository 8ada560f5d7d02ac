/**
 * Does a span look like it is about a model or a tool? True when any attribute key is in a
 * namespace an LLM or agent instrumentation writes, or an event is a GenAI event. A span that
 * looks like one but yields no call is what the coverage report shows: the keys of the spans
 * toolwatch does not (yet) read.
 *
 * Runs for every span no reader recognised (HTTP, database … spans too), on every key: one switch
 * on the first character rejects most keys of other instrumentations without a comparison.
 */
import type { Span } from '../model.js';

const G = 103;
const L = 108;
const A = 97;
const O = 111;
const T = 116;
const P = 112;
const F = 102;
const M = 109;

export function isLlmKey(key: string): boolean {
  switch (key.charCodeAt(0)) {
    case G:
      return key.startsWith('gen_ai.') || key.startsWith('gcp.vertex.agent.');
    case L:
      return (
        key.startsWith('llm.') || // OpenInference, OpenLLMetry
        key.startsWith('langfuse.') ||
        key.startsWith('logfire.') || // Pydantic Logfire's own spans around model calls
        (key.startsWith('lk.') && isLiveKitLlmKey(key))
      );
    case A:
      return key.startsWith('ai.') || key === 'all_messages_events'; // Vercel AI SDK; Pydantic AI
    case O:
      return key.startsWith('openinference.');
    case T:
      return key.startsWith('traceloop.');
    case P:
      return key.startsWith('pydantic_ai.');
    case F:
      return key.startsWith('flue.');
    case M:
      return key.startsWith('mlflow.') || key === 'model_request_parameters';
    default:
      return false;
  }
}

/** LiveKit's `lk.*` also covers speech and transport: only its model and tool keys count. */
const LK_PREFIXES: readonly string[] = [
  'lk.function_tool',
  'lk.pii.function_tool',
  'lk.response.',
  'lk.pii.response.',
  'lk.chat_ctx',
  'lk.pii.chat_ctx',
  'lk.llm_metrics',
];

function isLiveKitLlmKey(key: string): boolean {
  for (const p of LK_PREFIXES) if (key.startsWith(p)) return true;
  return false;
}

export function looksLikeLlmSpan(span: Span): boolean {
  for (const k in span.attributes) if (isLlmKey(k)) return true;
  for (const e of span.events) if (e.name.startsWith('gen_ai.')) return true;
  return false;
}
