function nullProto() {
    return Object.create(null);
}
export function logEventSpans(events) {
    const spans = new Map();
    for (const e of events) {
        const key = `${e.traceId}\u0000${e.spanId}\u0000${e.service}`;
        let s = spans.get(key);
        if (!s) {
            s = {
                traceId: e.traceId,
                spanId: e.spanId,
                parentSpanId: '',
                name: e.name,
                kind: 0,
                startTimeMs: e.timeMs,
                endTimeMs: e.timeMs,
                statusCode: 0,
                statusMessage: '',
                attributes: nullProto(),
                events: [],
                service: e.service,
                scope: e.scope,
                scopeVersion: e.scopeVersion,
            };
            spans.set(key, s);
        }
        if (e.timeMs < s.startTimeMs)
            s.startTimeMs = e.timeMs;
        if (e.timeMs > s.endTimeMs)
            s.endTimeMs = e.timeMs;
        Object.assign(s.attributes, e.attributes);
        const attributes = nullProto();
        Object.assign(attributes, e.attributes);
        if (e.body !== null)
            attributes['body'] = e.body;
        const ev = { name: e.name, timeMs: e.timeMs, attributes };
        s.events.push(ev);
    }
    return [...spans.values()];
}
//# sourceMappingURL=log-events.js.map