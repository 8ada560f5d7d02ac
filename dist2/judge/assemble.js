/** Steps in start order, then arrival order, then end, then span id: the same trace always reads the same. */
export function orderSteps(steps) {
    return [...steps].sort((a, b) => a.startMs - b.startMs ||
        (a.seq ?? 0) - (b.seq ?? 0) ||
        a.endMs - b.endMs ||
        (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0));
}
export function assemble(h, stored) {
    const steps = orderSteps(stored);
    const tools = new Map();
    let task;
    let finalAnswer;
    let model = '';
    let inputTokens = 0;
    let outputTokens = 0;
    for (const s of steps) {
        if (s.kind !== 'model')
            continue;
        if (task === undefined && s.userMessage)
            task = s.userMessage;
        if (s.outputText)
            finalAnswer = s.outputText;
        if (!model && s.model)
            model = s.model;
        inputTokens += s.inputTokens ?? 0;
        outputTokens += s.outputTokens ?? 0;
        for (const t of s.offered ?? [])
            if (!tools.has(t.name))
                tools.set(t.name, t);
    }
    return {
        traceId: h.traceId,
        service: h.service,
        model,
        ...(task !== undefined ? { task } : {}),
        ...(finalAnswer !== undefined ? { finalAnswer } : {}),
        tools: [...tools.values()],
        steps,
        inputTokens,
        outputTokens,
        latencyMs: Math.max(0, h.endMs - h.firstMs),
        startedMs: h.firstMs,
        hasFailure: h.hasFailure,
        status: h.status,
        probability: h.probability,
        attempts: h.attempts,
        ...(h.lastError ? { lastError: h.lastError } : {}),
    };
}
//# sourceMappingURL=assemble.js.map