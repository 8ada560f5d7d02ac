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
      return (key.startsWith('gen_ai.') && key !== CONVERSATION_ID) || key.startsWith('gcp.vertex.agent.');
    case L:
      return (
        key.startsWith('llm.') || // OpenInference, OpenLLMetry
        (key.startsWith('langfuse.') && !isLangfuseContextKey(key)) ||
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

/*
 * Keys an instrumentation copies onto every span of a conversation or trace, model call or not (Koog's
 * graph nodes, Langfuse's propagated trace attributes and metadata): they say which conversation a span
 * belongs to, not that it is about a model. Pydantic Logfire's `logfire.*` (`logfire.msg`,
 * `logfire.span_type`, `logfire.json_schema`) is on every span Logfire makes, so it is no sign either;
 * its model spans carry `gen_ai.*` as well.
 */
const CONVERSATION_ID = 'gen_ai.conversation.id';
const LANGFUSE_CONTEXT_PREFIXES: readonly string[] = [
  'langfuse.observation.metadata.',
  'langfuse.trace.',
  'langfuse.session.id',
  'langfuse.user.id',
  'langfuse.release',
  'langfuse.version',
  'langfuse.environment',
];

function isLangfuseContextKey(key: string): boolean {
  for (const p of LANGFUSE_CONTEXT_PREFIXES) if (key.startsWith(p)) return true;
  return false;
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

/**
 * Whether a span looks like an LLM or tool span, from its attribute keys and its events. for…in:
 * attribute objects are fast objects (model.ts newAttrObject) whose keys V8 walks from a cache, where
 * Object.keys would allocate an array per span (this runs for every span no reader recognised).
 */
export function looksLikeLlmSpan(span: Span): boolean {
  for (const k in span.attributes) if (isLlmKey(k)) return true;
  for (const e of span.events) if (e.name.startsWith('gen_ai.')) return true;
  return false;
}
