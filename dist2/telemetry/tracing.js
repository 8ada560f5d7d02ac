/**
 * What the rest of toolwatch sees of its own tracing: an optional Tracer. Undefined when telemetry
 * is off — callers branch on it once and build no span and no attribute (the ingest hot path stays
 * as it was). Span and attribute names are listed in the README (Self-telemetry).
 */
import { ROOT_CONTEXT, SpanStatusCode, trace, } from '@opentelemetry/api';
/** The instrumentation scope of toolwatch's own spans. */
export const TRACER_NAME = 'toolwatch';
/**
 * True for a batch made only of toolwatch's own spans (its exporter pointed at itself, or at a
 * toolwatch that points back): such a batch is ingested like any other but not traced, so
 * exporting a span never causes the next one — no loop, however the exporters are wired.
 */
export function isOwnTelemetry(spans) {
    return spans.length > 0 && spans.every((s) => s.scope === TRACER_NAME);
}
/** A child of `parent` (explicit parents: nothing depends on a context manager being installed). */
export function startChild(tracer, name, parent, attributes) {
    const ctx = parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
    return tracer.startSpan(name, attributes ? { attributes } : {}, ctx);
}
/** Ends a span; an error marks it failed and is recorded as an exception event. */
export function endSpan(span, err) {
    if (err !== undefined) {
        span.recordException(err instanceof Error ? err : new Error(String(err)));
        span.setStatus({ code: SpanStatusCode.ERROR, message: err?.message ?? String(err) });
    }
    span.end();
}
/** Runs fn in a span when there is a tracer (fn sets its attributes on it); just fn otherwise. */
export async function traced(tracer, name, fn, parent) {
    if (!tracer)
        return fn(undefined);
    const span = startChild(tracer, name, parent);
    try {
        const v = await fn(span);
        endSpan(span);
        return v;
    }
    catch (err) {
        endSpan(span, err);
        throw err;
    }
}
//# sourceMappingURL=tracing.js.map