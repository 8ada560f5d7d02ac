/**
 * An SDK failure (openai or @anthropic-ai/sdk: both raise APIError with status and Headers, and
 * connection / timeout errors) → a provider_error outcome, whether to retry, and how long the
 * server asked us to wait.
 */
import { retryAfterMs, withRetries } from '../retry.js';
const clip = (s) => s.slice(0, 500);
function fail(code, message, retryable, response, status) {
    return {
        retryable,
        failure: {
            outcome: { kind: 'provider_error', code, message: clip(message), ...(status !== undefined ? { status } : {}) },
            response,
        },
    };
}
/**
 * An error event inside a stream (Anthropic's `event: error`: HTTP 200, so no status) by its
 * documented type: rate_limit_error waits and retries, overloaded_error and api_error are the
 * server's and retried, the auth types are auth, the rest a refusal of the request.
 */
function streamError(body, message, response) {
    const type = body?.error?.type;
    if (typeof type !== 'string')
        return fail('bad_response', message, false, response);
    const msg = `stream error ${type}: ${message}`;
    if (type === 'rate_limit_error')
        return fail('rate_limited', msg, true, response);
    if (type === 'overloaded_error' || type === 'api_error' || type === 'timeout_error')
        return fail('server', msg, true, response);
    if (type === 'authentication_error' || type === 'permission_error')
        return fail('auth', msg, false, response);
    return fail('rejected', msg, false, response);
}
export function classifySdkError(err, sdk) {
    if (err instanceof sdk.APIConnectionTimeoutError)
        return fail('timeout', 'the provider did not answer in time', true, null);
    if (err instanceof sdk.APIConnectionError)
        return fail('connection', `cannot reach the provider: ${err.message}`, true, null);
    if (err instanceof sdk.APIError) {
        const e = err;
        const status = e.status;
        const events = err.streamEvents;
        const response = { status: status ?? null, body: e.error ?? null, ...(events ? { events } : {}) };
        if (typeof status !== 'number')
            return streamError(e.error, e.message, response);
        const msg = `HTTP ${status}: ${e.message}`;
        if (status === 429) {
            const c = fail('rate_limited', msg, true, response, status);
            const ra = retryAfterMs(e.headers);
            return ra !== undefined ? { ...c, retryAfterMs: ra } : c;
        }
        if (status === 401 || status === 403)
            return fail('auth', msg, false, response, status);
        if (status >= 500 || status === 408 || status === 409)
            return fail('server', msg, true, response, status);
        return fail('rejected', msg, false, response, status);
    }
    return fail('bad_response', `unreadable answer: ${err?.message ?? String(err)}`, false, null);
}
/**
 * One request through an SDK with the run's retry policy (the SDKs' own retries are off): each
 * attempt timed, failures classified; the result as an adapter returns it. `read` maps the answer
 * to the canonical outcome and the provider's token usage.
 */
export async function sendWithRetries(send, sdk, body, o) {
    let latencyMs = 0;
    const attempt = async () => {
        const t0 = o.now();
        try {
            const res = await send();
            latencyMs = o.now() - t0;
            return { ok: true, value: res };
        }
        catch (err) {
            latencyMs = o.now() - t0;
            return { ok: false, ...classifySdkError(err, sdk) };
        }
    };
    const r = await withRetries(attempt, o.retry);
    if (!r.ok)
        return { outcome: r.failure.outcome, request: body, response: r.failure.response, latencyMs, attempts: r.attempts };
    const { outcome, usage } = o.read(r.value);
    return { outcome, request: body, response: r.value, latencyMs, ...(usage ? { usage } : {}), attempts: r.attempts };
}
/**
 * A response's token usage where the API names it `input_tokens` / `output_tokens` (Anthropic
 * Messages and OpenAI Responses alike); nothing when the response carries none.
 */
export function inputOutputUsage(res) {
    const usage = res.usage;
    return usage ? { usage: { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 } } : {};
}
//# sourceMappingURL=sdk-errors.js.map