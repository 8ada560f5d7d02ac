function message(m, r) {
    if (m.role === 'user')
        return { role: 'user', content: r.text(m.content) };
    if (m.role === 'tool')
        return { role: 'tool', tool_call_id: m.tool_call_id, content: r.jsonText(m.content) };
    return {
        role: 'assistant',
        content: m.content === null ? null : r.text(m.content),
        ...(m.tool_calls
            ? {
                tool_calls: m.tool_calls.map((c) => ({
                    id: c.id,
                    type: c.type,
                    function: { name: r.text(c.function.name), arguments: r.jsonText(c.function.arguments) },
                })),
            }
            : {}),
    };
}
function call(c, r) {
    return {
        name: r.text(c.name),
        ...(c.arguments !== undefined ? { arguments: r.jsonText(c.arguments) } : {}),
        ...(c.outcome ? { outcome: c.outcome } : {}),
        ...(c.errors ? { errors: c.errors.map((e) => r.text(e)) } : {}),
    };
}
export function redactDraft(d, r) {
    const m = d.metadata;
    const first = {
        ...d,
        messages: d.messages.map((x) => message(x, r)),
        ...(d.tools ? { tools: r.strings(d.tools) } : {}),
        observed: {
            calls: d.observed.calls.map((c) => call(c, r)),
            ...(d.observed.text !== undefined ? { text: r.text(d.observed.text) } : {}),
        },
        metadata: {
            ...m,
            ...(m.feedback ? { feedback: { ...m.feedback, comments: m.feedback.comments.map((c) => r.text(c)) } } : {}),
            ...(m.verdict
                ? {
                    verdict: {
                        ...m.verdict,
                        ...(m.verdict.reasoning !== undefined ? { reasoning: r.text(m.verdict.reasoning) } : {}),
                    },
                }
                : {}),
        },
    };
    // Second layer: every string of what is written, whatever field it sits in.
    const content = r.strings({
        messages: first.messages,
        tools: first.tools,
        observed: first.observed,
        metadata: first.metadata,
    });
    return { ...first, ...content };
}
//# sourceMappingURL=redact.js.map