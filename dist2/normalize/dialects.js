/**
 * The built-in dialect readers, in one place and in precedence order: the first reader whose
 * `matches` is true reads the span (src/normalize/dialect.ts). Adding a dialect is one file exporting
 * its DialectReader and one `.add(…)` line below, placed by the precedence it needs.
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
import { Dialects } from './dialect.js';
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
/** The built-in readers in their precedence order (a fresh registry each call). */
export function builtinDialects() {
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
//# sourceMappingURL=dialects.js.map