import { retryAfterMs, withRetries } from '../retry.js';
import { HarnessError } from './adapter.js';
import { toGeminiSchema } from './gemini-schema.js';
export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';
function argsObject(c) {
    let v = c.arguments;
    if (typeof v === 'string') {
        try {
            v = JSON.parse(v);
        }
        catch {
            v = undefined;
        }
    }
    if (!v || typeof v !== 'object' || Array.isArray(v))
        throw new HarnessError(`history call ${c.name} (${c.id ?? 'no id'}): arguments are not a JSON object; a functionCall's args must be one`);
    return v;
}
/** A tool result as Gemini's functionResponse.response (an object): JSON objects as they are, anything else wrapped. */
function responseObject(content, isError) {
    let v = content;
    try {
        v = JSON.parse(content);
    }
    catch {
        // Plain text stays text.
    }
    if (v && typeof v === 'object' && !Array.isArray(v) && !isError)
        return v;
    return isError ? { error: v } : { output: v };
}
/** Canonical messages → {systemInstruction, contents}; consecutive same-role turns are merged. */
export function toGeminiContents(messages) {
    const system = [];
    const contents = [];
    const names = new Map();
    const push = (role, parts) => {
        const last = contents[contents.length - 1];
        if (last && last.role === role)
            last.parts.push(...parts);
        else
            contents.push({ role, parts });
    };
    for (const m of messages) {
        if (m.role === 'system')
            system.push(m.content);
        else if (m.role === 'user')
            push('user', [{ text: m.content }]);
        else if (m.role === 'assistant') {
            const parts = m.content ? [{ text: m.content }] : [];
            for (const c of m.toolCalls ?? []) {
                if (c.id)
                    names.set(c.id, c.name);
                parts.push({
                    functionCall: { ...(c.id ? { id: c.id } : {}), name: c.name, args: argsObject(c) },
                    ...(typeof c.meta?.thoughtSignature === 'string' ? { thoughtSignature: c.meta.thoughtSignature } : {}),
                });
            }
            if (parts.length)
                push('model', parts);
        }
        else {
            const name = m.name ?? names.get(m.toolCallId);
            if (!name)
                throw new HarnessError(`tool result ${m.toolCallId}: a functionResponse needs the function's name`);
            push('user', [{ functionResponse: { id: m.toolCallId, name, response: responseObject(m.content, m.isError) } }]);
        }
    }
    return { system: system.join('\n\n'), contents };
}
export function toGeminiTools(tools) {
    const changes = [];
    const declarations = tools.map((t) => {
        const r = t.parameters === undefined ? undefined : toGeminiSchema(t.parameters);
        for (const c of r?.changes ?? [])
            changes.push(`${t.name}: ${c}`);
        return {
            name: t.name,
            ...(t.description ? { description: t.description } : {}),
            ...(r ? { parameters: r.schema } : {}),
        };
    });
    return { tools: [{ functionDeclarations: declarations }], changes };
}
/** auto → AUTO, required → ANY, none → NONE, {name} → ANY limited to that function. */
export function geminiToolConfig(c) {
    if (c === 'auto')
        return { functionCallingConfig: { mode: 'AUTO' } };
    if (c === 'required')
        return { functionCallingConfig: { mode: 'ANY' } };
    if (c === 'none')
        return { functionCallingConfig: { mode: 'NONE' } };
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [c.name] } };
}
const SAFETY_STOPS = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']);
export function fromGeminiResponse(res) {
    const r = res;
    if (!r || typeof r !== 'object')
        return { kind: 'provider_error', code: 'bad_response', message: 'not an object' };
    const cand = Array.isArray(r.candidates) ? r.candidates[0] : undefined;
    if (!cand) {
        const block = r.promptFeedback?.blockReason;
        if (block)
            return { kind: 'refusal', text: `prompt blocked: ${block}` };
        return { kind: 'provider_error', code: 'bad_response', message: 'the answer has no candidates' };
    }
    const calls = [];
    const texts = [];
    for (const p of cand.content?.parts ?? []) {
        const fc = p.functionCall;
        if (fc) {
            if (typeof fc.name !== 'string')
                return { kind: 'provider_error', code: 'bad_response', message: 'a functionCall part without a name' };
            calls.push({
                id: typeof fc.id === 'string' ? fc.id : null,
                name: fc.name,
                // Gemini omits args for a call with none; an absent value stays absent.
                arguments: fc.args,
                ...(typeof p.thoughtSignature === 'string' ? { meta: { thoughtSignature: p.thoughtSignature } } : {}),
            });
        }
        else if (typeof p.text === 'string' && p.thought !== true)
            texts.push(p.text);
    }
    const text = texts.join('');
    if (calls.length)
        return { kind: 'tool_calls', calls, ...(text ? { text } : {}) };
    if (cand.finishReason === 'MALFORMED_FUNCTION_CALL') {
        const msg = cand.finishMessage ?? '';
        const name = /default_api\.([A-Za-z_][\w.-]*)\s*\(/.exec(msg)?.[1] ?? /([A-Za-z_][\w-]*)\s*\(/.exec(msg)?.[1] ?? '';
        return { kind: 'tool_calls', calls: [{ id: null, name, arguments: msg }], ...(text ? { text } : {}) };
    }
    if (cand.finishReason && SAFETY_STOPS.has(cand.finishReason) && !text)
        return { kind: 'refusal', text: `stopped: ${cand.finishReason}` };
    return { kind: 'text', text };
}
function usageOf(res) {
    const u = res?.usageMetadata;
    if (!u)
        return undefined;
    // Thinking tokens are billed as output.
    return {
        inputTokens: u.promptTokenCount ?? 0,
        outputTokens: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0),
    };
}
/** google.rpc.RetryInfo's retryDelay ("22s", "8.94s") in ms. */
function retryDelayMs(e) {
    const d = e?.details?.find((x) => x['@type']?.endsWith('google.rpc.RetryInfo'))?.retryDelay;
    const m = typeof d === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(d) : null;
    return m ? Math.round(Number(m[1]) * 1000) : undefined;
}
function failure(code, message, retryable, response, status) {
    return {
        ok: false,
        retryable,
        failure: {
            outcome: {
                kind: 'provider_error',
                code,
                message: message.slice(0, 500),
                ...(status !== undefined ? { status } : {}),
            },
            response,
        },
    };
}
/** An HTTP error answer → a provider_error, whether to retry, and the wait the server asked for. */
export function classifyGeminiError(status, headers, text) {
    let body = text;
    try {
        body = JSON.parse(text);
    }
    catch {
        // Not JSON (a proxy's page): kept as text.
    }
    const e = body?.error;
    const response = { status, body };
    const msg = `HTTP ${status}${e?.status ? ` ${e.status}` : ''}: ${e?.message ?? text.slice(0, 200)}`;
    if (status === 429) {
        const f = failure('rate_limited', msg, true, response, status);
        const wait = retryAfterMs(headers) ?? retryDelayMs(e);
        return wait !== undefined ? { ...f, retryAfterMs: wait } : f;
    }
    if (status === 401 || status === 403 || e?.details?.some((d) => d.reason === 'API_KEY_INVALID'))
        return failure('auth', msg, false, response, status);
    if (status >= 500 || status === 408 || status === 409)
        return failure('server', msg, true, response, status);
    return failure('rejected', msg, false, response, status);
}
export const createGeminiAdapter = (spec, opts) => {
    const base = (spec.baseUrl ?? GEMINI_DEFAULT_BASE_URL).replace(/\/+$/, '');
    const url = `${base}/models/${encodeURIComponent(spec.model.replace(/^models\//, ''))}:generateContent`;
    const now = opts.now ?? Date.now;
    const send = async (body) => {
        let res;
        try {
            res = await fetch(url, {
                method: 'POST',
                headers: { 'content-type': 'application/json', ...(opts.apiKey ? { 'x-goog-api-key': opts.apiKey } : {}) },
                body: JSON.stringify(body),
                signal: AbortSignal.timeout(opts.timeoutMs),
            });
        }
        catch (err) {
            if (err.name === 'TimeoutError')
                return failure('timeout', 'the provider did not answer in time', true, null);
            return failure('connection', `cannot reach the provider: ${err.message}`, true, null);
        }
        let text;
        try {
            text = await res.text();
        }
        catch (err) {
            if (err.name === 'TimeoutError')
                return failure('timeout', 'the provider did not answer in time', true, null);
            return failure('connection', `the answer broke off: ${err.message}`, true, null);
        }
        if (!res.ok)
            return classifyGeminiError(res.status, res.headers, text);
        try {
            return { ok: true, value: JSON.parse(text) };
        }
        catch {
            return failure('bad_response', 'unreadable answer: not JSON', false, {
                status: res.status,
                body: text.slice(0, 2000),
            });
        }
    };
    return {
        provider: spec.provider,
        model: spec.model,
        async complete(req) {
            let body;
            let changes = [];
            try {
                const { system, contents } = toGeminiContents(req.messages);
                const tools = req.tools.length ? toGeminiTools(req.tools) : undefined;
                changes = tools?.changes ?? [];
                const { generationConfig: extraGen, ...params } = (spec.params ?? {});
                const generationConfig = {
                    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
                    ...(req.maxTokens !== undefined ? { maxOutputTokens: req.maxTokens } : {}),
                    ...(extraGen && typeof extraGen === 'object' ? extraGen : {}),
                };
                body = {
                    ...(system ? { systemInstruction: { parts: [{ text: system }] } } : {}),
                    contents,
                    ...(tools ? { tools: tools.tools, toolConfig: geminiToolConfig(req.toolChoice ?? 'auto') } : {}),
                    ...(Object.keys(generationConfig).length ? { generationConfig } : {}),
                    ...params,
                };
            }
            catch (err) {
                const outcome = { kind: 'provider_error', code: 'harness', message: err.message };
                return { outcome, request: null, response: null, latencyMs: 0, attempts: 0 };
            }
            let latencyMs = 0;
            const r = await withRetries(async () => {
                const t0 = now();
                const a = await send(body);
                latencyMs = now() - t0;
                return a;
            }, opts.retry);
            const transform = changes.length ? { transform: { name: 'gemini-schema', changes } } : {};
            if (!r.ok)
                return {
                    outcome: r.failure.outcome,
                    request: body,
                    response: r.failure.response,
                    latencyMs,
                    attempts: r.attempts,
                    ...transform,
                };
            const usage = usageOf(r.value);
            return {
                outcome: fromGeminiResponse(r.value),
                request: body,
                response: r.value,
                latencyMs,
                ...(usage ? { usage } : {}),
                attempts: r.attempts,
                ...transform,
            };
        },
    };
};
//# sourceMappingURL=gemini.js.map