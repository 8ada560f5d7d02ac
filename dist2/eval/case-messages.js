const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
/** String content, or OpenAI content parts ([{type:'text', text}]) joined. */
function contentText(v, where) {
    if (typeof v === 'string')
        return { ok: true, value: v };
    if (Array.isArray(v)) {
        const texts = [];
        for (const part of v) {
            if (isObj(part) && part.type === 'text' && typeof part.text === 'string')
                texts.push(part.text);
            else
                return { ok: false, error: `${where}.content: only text parts ({type: "text", text}) are supported` };
        }
        return { ok: true, value: texts.join('\n') };
    }
    return { ok: false, error: `${where}.content: must be a string` };
}
function readCall(v, where) {
    if (!isObj(v))
        return { ok: false, error: `${where}: must be an object` };
    const fn = isObj(v.function) ? v.function : v;
    if (typeof fn.name !== 'string' || fn.name === '')
        return { ok: false, error: `${where}: needs a function name` };
    const id = typeof v.id === 'string' && v.id !== '' ? v.id : null;
    return { ok: true, value: { id, name: fn.name, arguments: fn.arguments ?? fn.args ?? {} } };
}
function readMessage(v, where) {
    if (!isObj(v))
        return { ok: false, error: `${where}: must be an object` };
    const role = v.role;
    if (role === 'system' || role === 'developer' || role === 'user') {
        const c = contentText(v.content, where);
        if (!c.ok)
            return c;
        return { ok: true, value: { role: role === 'user' ? 'user' : 'system', content: c.value } };
    }
    if (role === 'assistant') {
        let content = null;
        if (v.content !== undefined && v.content !== null) {
            const c = contentText(v.content, where);
            if (!c.ok)
                return c;
            content = c.value;
        }
        if (v.tool_calls === undefined || v.tool_calls === null)
            return { ok: true, value: { role, content } };
        if (!Array.isArray(v.tool_calls))
            return { ok: false, error: `${where}.tool_calls: must be an array` };
        const toolCalls = [];
        for (const [i, c] of v.tool_calls.entries()) {
            const call = readCall(c, `${where}.tool_calls[${i}]`);
            if (!call.ok)
                return call;
            if (call.value.id === null)
                return { ok: false, error: `${where}.tool_calls[${i}]: needs an id (tool results refer to it)` };
            toolCalls.push(call.value);
        }
        return { ok: true, value: { role, content, toolCalls } };
    }
    if (role === 'tool') {
        if (typeof v.tool_call_id !== 'string' || v.tool_call_id === '')
            return { ok: false, error: `${where}: a tool message needs tool_call_id` };
        const c = typeof v.content === 'string' ? { ok: true, value: v.content } : contentText(v.content ?? '', where);
        if (!c.ok)
            return c;
        return {
            ok: true,
            value: {
                role,
                toolCallId: v.tool_call_id,
                content: c.value,
                ...(typeof v.name === 'string' ? { name: v.name } : {}),
            },
        };
    }
    return { ok: false, error: `${where}.role: must be one of system, developer, user, assistant, tool` };
}
/** A list of chat messages; every tool message must answer a call made before it. */
export function readMessages(v, where) {
    if (!Array.isArray(v))
        return { ok: false, error: `${where}: must be an array of messages` };
    const out = [];
    const callIds = new Set();
    for (const [i, m] of v.entries()) {
        const r = readMessage(m, `${where}[${i}]`);
        if (!r.ok)
            return r;
        if (r.value.role === 'assistant')
            for (const c of r.value.toolCalls ?? [])
                callIds.add(c.id);
        if (r.value.role === 'tool' && !callIds.has(r.value.toolCallId)) {
            return {
                ok: false,
                error: `${where}[${i}]: tool_call_id ${JSON.stringify(r.value.toolCallId)} answers no earlier tool call`,
            };
        }
        out.push(r.value);
    }
    return { ok: true, value: out };
}
//# sourceMappingURL=case-messages.js.map