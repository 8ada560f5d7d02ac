/**
 * The dialect readers, in precedence order: the first reader whose `matches` is true reads the
 * span. A registry built per service instance (builtinDialects); a new dialect is added with
 * `register(name, reader, { before })`, never by editing a switch.
 *
 * Default order, most specific marker first:
 *  1. langfuse-otel — Langfuse's own SDK spans (`langfuse.observation.input/output`): the observation
 *                     is read whole, whatever gen_ai.* an integration adds to the same span.
 *  2. vercel-ai     — its do* spans also carry gen_ai.system/request.model, which `genai` would take
 *                     without reading `ai.response.toolCalls`.
 *  3. openinference — an explicit `openinference.span.kind` marker; OpenInference bridges may copy
 *                     gen_ai.* (and Google ADK its gcp.vertex.agent.*) onto the same span, and one
 *                     reader must own it.
 *  4. mlflow, google-adk, pydantic-ai, livekit, flue, logfire — framework markers (`mlflow.spanType`,
 *                     `gcp.vertex.agent.*`, `pydantic_ai.*`/`model_request_parameters`, `lk.*`,
 *                     `flue.*`, Logfire's `request_data`) on spans that also carry gen_ai.* the generic
 *                     readers would take without the framework's own content.
 *  5. genai-legacy  — matches only spans with old forms; it reads the current form first and fills
 *                     gaps, so mixed spans yield their calls once.
 *  6. genai         — the current conventions; the catch-all for gen_ai.*.
 */
import type { Span, SpanFacts } from '../model.js';
import { Registry } from '../util/registry.js';
import { baseFacts } from './facts.js';
import { setFinishReasons } from './finish-reasons.js';
import { flueReader } from './flue.js';
import { genaiReader } from './genai.js';
import { genaiLegacyReader } from './genai-legacy.js';
import { googleAdkReader } from './google-adk.js';
import { langfuseOtelReader } from './langfuse-otel.js';
import { livekitReader } from './livekit.js';
import { logfireReader } from './logfire.js';
import { mlflowReader } from './mlflow.js';
import { openinferenceReader } from './openinference.js';
import { pydanticAiReader } from './pydantic-ai.js';
import { vercelAiReader } from './vercel-ai.js';

export interface DialectReader {
  /** Registry name; becomes SpanFacts.dialect. */
  name: string;
  /** Cheap test on attribute presence: runs for every span against every earlier reader. */
  matches(span: Span): boolean;
  /** Must not throw on any input; returns proposals/replays arrays always. */
  read(span: Span): SpanFacts;
}

export class Dialects extends Registry<DialectReader> {
  private readers: DialectReader[] = [];

  constructor() {
    super('dialect');
  }

  /** Adds a reader under its own name, by default last; `before` names a reader it must precede. */
  add(reader: DialectReader, options: { before?: string } = {}): this {
    return this.register(reader.name, reader, options);
  }

  override register(name: string, reader: DialectReader, options: { before?: string } = {}): this {
    super.register(name, reader, options);
    this.readers = this.values();
    return this;
  }

  /**
   * What the span says about models and tools; undefined when no reader recognises it (the span
   * carries nothing about them). A reader bug on hostile input must not take the whole batch down,
   * so a throw yields bare facts with the span's identity and no calls.
   */
  normalizeSpan(span: Span): SpanFacts | undefined {
    for (const r of this.readers) {
      if (!r.matches(span)) continue;
      let f: SpanFacts;
      try {
        f = r.read(span);
      } catch {
        f = baseFacts(span, r.name, 'other');
      }
      // Set here, for every reader alike: where a call came from, for the coverage report.
      f.scope = span.scope;
      f.scopeVersion = span.scopeVersion;
      if (f.proposals.length > 0) setFinishReasons(f, span);
      return f;
    }
    return undefined;
  }

  normalizeSpans(spans: readonly Span[]): SpanFacts[] {
    const out: SpanFacts[] = [];
    for (const s of spans) {
      const f = this.normalizeSpan(s);
      if (f) out.push(f);
    }
    return out;
  }
}

/** The built-in readers in their precedence order (a fresh registry each call). */
export function builtinDialects(): Dialects {
  return new Dialects()
    .add(langfuseOtelReader)
    .add(vercelAiReader)
    .add(openinferenceReader)
    .add(mlflowReader)
    .add(googleAdkReader)
    .add(pydanticAiReader)
    .add(livekitReader)
    .add(flueReader)
    .add(logfireReader)
    .add(genaiLegacyReader)
    .add(genaiReader);
}
