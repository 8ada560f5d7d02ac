import { baseFacts } from './facts.js';
import { observationToFacts } from './langfuse.js';
import { isRecord, jsonValue, str } from '../util/values.js';
const P = 'langfuse.observation.';
const METADATA = `${P}metadata.`;
function metadataOf(a) {
    const out = {};
    for (const k in a) {
        if (!k.startsWith(METADATA))
            continue;
        const v = a[k];
        const parsed = typeof v === 'string' ? jsonValue(v) : v;
        out[k.slice(METADATA.length)] = parsed === undefined ? v : parsed;
    }
    return out;
}
function usageOf(a) {
    const u = jsonValue(a[`${P}usage_details`]);
    if (!isRecord(u))
        return null;
    const out = {};
    for (const [k, v] of Object.entries(u))
        if (typeof v === 'number')
            out[k] = v;
    return out;
}
const iso = (ms) => new Date(Number.isFinite(ms) ? ms : 0).toISOString();
export const langfuseOtelReader = {
    name: 'langfuse-otel',
    matches(span) {
        const a = span.attributes;
        // Other SDKs set langfuse.observation.type as a hint on their own spans (Strands: "span" on the
        // agent span); only spans that carry the observation's content are Langfuse's own.
        return typeof a[`${P}type`] === 'string' && (a[`${P}input`] !== undefined || a[`${P}output`] !== undefined);
    },
    read(span) {
        const a = span.attributes;
        const o = {
            id: span.spanId,
            traceId: span.traceId,
            type: str(a, `${P}type`) ?? 'span',
            name: span.name,
            startTime: iso(span.startTimeMs),
            endTime: iso(span.endTimeMs),
            parentObservationId: span.parentSpanId,
            level: str(a, `${P}level`) ?? (span.statusCode === 2 ? 'ERROR' : null),
            statusMessage: str(a, `${P}status_message`) ?? (span.statusMessage || null),
            input: a[`${P}input`],
            output: a[`${P}output`],
            metadata: metadataOf(a),
            model: str(a, `${P}model.name`) ?? null,
            usageDetails: usageOf(a),
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
//# sourceMappingURL=langfuse-otel.js.map