import { isRestricted } from '../util/service-view.js';
async function sumBy(counter, source, sees = () => true) {
    const m = await counter.get();
    return m.values
        .filter((v) => v.labels['source'] === source && sees(String(v.labels['service'] ?? '')))
        .reduce((a, v) => a + v.value, 0);
}
export async function sourcesSnapshot(r) {
    const restricted = isRestricted(r.view);
    const otlp = {
        name: 'otlp',
        enabled: true,
        // Pushed, not pulled: there is no watermark to be behind.
        watermark: null,
        lagSeconds: null,
        lastError: null,
        counts: {
            spans: restricted ? null : await sumBy(r.metrics.spansReceived, 'otlp'),
            calls: await sumBy(r.metrics.toolCalls, 'otlp', r.view.sees),
        },
        countsSince: 'process start',
    };
    let langfuse = { name: 'langfuse', enabled: false };
    if (r.langfuse) {
        const info = (await r.langfuse());
        const feedback = info['feedback'];
        langfuse = restricted
            ? { ...info, counts: null, pendingScores: null, ...(feedback ? { feedback: { ...feedback, scores: null } } : {}) }
            : info;
    }
    return { sources: [otlp, langfuse] };
}
//# sourceMappingURL=sources.js.map