/**
 * Spans written by Langfuse's own OpenTelemetry-based SDKs (langfuse-python ≥ 3, @langfuse/tracing:
 * the LangChain/LangGraph callbacks, the OpenAI wrapper, `start_observation`). They carry the
 * observation the Langfuse API would return, as attributes:
 *
 *   langfuse.observation.type            generation | tool | agent | chain | span | event | …
 *   langfuse.observation.input / output  JSON strings (or text)
 *   langfuse.observation.model.name      the model
 *   langfuse.observation.usage_details   JSON {input, output, …}
 *   langfuse.observation.level / status_message
 *   langfuse.observation.metadata.<key>  one attribute per metadata key (nested keys dotted)
 *   langfuse.observation.prompt.name / prompt.version  the managed prompt a generation was linked to
 *
 * So the observation is rebuilt and read by the same normalizer as the API pull (langfuse.ts):
 * the calls sit in the output exactly as there.
 */
import type { AttrObject, Span, SpanFacts } from '../model.js';
import type { DialectReader } from './dialect.js';
import { baseFacts } from './facts.js';
import { observationToFacts, type LangfuseObservation } from './langfuse.js';
import { isRecord, jsonValue, str } from '../util/values.js';

const P = 'langfuse.observation.';
const METADATA = `${P}metadata.`;
// Built once: a key made per call is a new string, hashed again on every lookup (matches runs for every span).
const TYPE = `${P}type`;
const INPUT = `${P}input`;
const OUTPUT = `${P}output`;

function metadataOf(a: AttrObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in a) {
    if (!k.startsWith(METADATA)) continue;
    const v = a[k];
    const parsed = typeof v === 'string' ? jsonValue(v) : v;
    out[k.slice(METADATA.length)] = parsed === undefined ? v : parsed;
  }
  return out;
}

function usageOf(a: AttrObject): Record<string, number> | null {
  const u = jsonValue(a[`${P}usage_details`]);
  if (!isRecord(u)) return null;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(u)) if (typeof v === 'number') out[k] = v;
  return out;
}

/** The linked prompt's version: an int attribute, or its decimal text. */
function promptVersionOf(v: unknown): number | null {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

const iso = (ms: number): string => new Date(Number.isFinite(ms) ? ms : 0).toISOString();

export const langfuseOtelReader: DialectReader = {
  name: 'langfuse-otel',
  marks: { keys: [TYPE] },
  matches(span) {
    const a = span.attributes;
    // Other SDKs set langfuse.observation.type as a hint on their own spans (Strands: "span" on the
    // agent span); only spans that carry the observation's content are Langfuse's own.
    return typeof a[TYPE] === 'string' && (a[INPUT] !== undefined || a[OUTPUT] !== undefined);
  },
  read(span: Span): SpanFacts {
    const a = span.attributes;
    const o: LangfuseObservation = {
      id: span.spanId,
      traceId: span.traceId,
      type: str(a, TYPE) ?? 'span',
      name: span.name,
      startTime: iso(span.startTimeMs),
      endTime: iso(span.endTimeMs),
      parentObservationId: span.parentSpanId,
      level: str(a, `${P}level`) ?? (span.statusCode === 2 ? 'ERROR' : null),
      statusMessage: str(a, `${P}status_message`) ?? (span.statusMessage || null),
      input: a[INPUT],
      output: a[OUTPUT],
      metadata: metadataOf(a),
      model: str(a, `${P}model.name`) ?? null,
      usageDetails: usageOf(a),
      promptName: str(a, `${P}prompt.name`) ?? null,
      promptVersion: promptVersionOf(a[`${P}prompt.version`]),
    };
    const f = observationToFacts(o, { service: span.service }) ?? baseFacts(span, 'langfuse-otel', 'other');
    f.dialect = 'langfuse-otel';
    // The span's own identity and clock, not the observation's reconstruction of them.
    f.service = span.service;
    f.startTimeMs = span.startTimeMs;
    f.endTimeMs = span.endTimeMs;
    return f;
  },
};
