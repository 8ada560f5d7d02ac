/**
 * The judge model over any OpenAI-compatible chat-completions endpoint, with the official `openai`
 * client.
 *
 * Retries are ours, not the SDK's (`maxRetries: 0`): the SDK sleeps for whatever Retry-After says —
 * an hour if the server says so — while holding the run, and its backoff is not tunable. Here a 429
 * waits exactly Retry-After (retry-after-ms, seconds or an HTTP date) when that is at most
 * `judge.max_retry_wait`, and otherwise gives up at once so the run stops and its items stay
 * pending; 5xx, 408/409, timeouts and connection errors back off exponentially (base × 2^n,
 * capped, with jitter) for up to `judge.max_retries` retries. `timeout` bounds each attempt.
 *
 * Structured output first (`response_format: json_schema`, strict); a server that rejects it with
 * 400/422 is remembered and asked for JSON in text from then on. An answer that is not a valid
 * verdict is asked for once more, then reported as invalid.
 */
import OpenAI from 'openai';
import { classifyStatus } from '../delivery/http-status.js';
import { withRetries } from '../delivery/retry.js';
import { parseVerdict, VERDICT_RESPONSE_SCHEMA } from './verdict.js';
/** The request could not be answered now; the trajectory stays pending. */
export class JudgeTransportError extends Error {
    kind;
    status;
    retryAfterMs;
    constructor(kind, message, status, 
    /** The server's Retry-After, when it sent one. */
    retryAfterMs) {
        super(message);
        this.kind = kind;
        this.status = status;
        this.retryAfterMs = retryAfterMs;
        this.name = 'JudgeTransportError';
    }
}
/** The production judge's verdict (reached_goal, unnecessary_calls, dangerous_calls). */
export const TRAJECTORY_CONTRACT = {
    name: 'trajectory_verdict',
    schema: VERDICT_RESPONSE_SCHEMA,
    parse: parseVerdict,
};
const TEXT_MODE_INSTRUCTION = 'Reply with only the JSON object described above: no code fence, no text before or after it.';
export class OpenAIJudgeClient {
    opts;
    model;
    api;
    /** undefined until the server has answered a json_schema request either way. */
    jsonSchema;
    sleep;
    random;
    /** base × 2^n, at most 30 × base, each delay 75–100 % of that at random. */
    backoff;
    constructor(opts) {
        this.opts = opts;
        this.model = opts.model;
        this.api = new OpenAI({
            baseURL: opts.baseUrl,
            // Local servers (vLLM, Ollama) take any key; the SDK insists on one.
            apiKey: opts.apiKey ?? 'no-key',
            maxRetries: 0,
            timeout: opts.timeoutMs,
            ...(opts.fetch ? { fetch: opts.fetch } : {}),
        });
        this.sleep = opts.sleep ?? ((ms) => abortableSleep(ms, opts.signal));
        this.random = opts.random ?? Math.random;
        const base = opts.backoffBaseMs ?? 1000;
        this.backoff = { baseMs: base, maxMs: base * 30, jitter: 0.25 };
    }
    async judge(messages) {
        return this.judgeAs(messages, TRAJECTORY_CONTRACT);
    }
    /** The same retries, fallback and one re-ask, for any verdict contract (the eval judge's decision verdict). */
    async judgeAs(messages, contract) {
        const usage = { inputTokens: 0, outputTokens: 0 };
        const first = await this.ask([...messages], usage, contract);
        let parsed = contract.parse(first.text);
        if (parsed.ok)
            return { verdict: parsed.value, ...usage, mode: first.mode };
        // One more chance, told what was wrong.
        const retry = [
            ...messages,
            { role: 'assistant', content: first.text.slice(0, 4000) },
            { role: 'user', content: `That is not a valid verdict (${parsed.error}). ${TEXT_MODE_INSTRUCTION}` },
        ];
        const second = await this.ask(retry, usage, contract);
        parsed = contract.parse(second.text);
        if (parsed.ok)
            return { verdict: parsed.value, ...usage, mode: second.mode };
        return { invalid: parsed.error, ...usage, mode: second.mode };
    }
    async ask(messages, usage, contract) {
        if (this.jsonSchema !== false) {
            try {
                const text = await this.complete(messages, contract, usage);
                this.jsonSchema = true;
                return { text, mode: 'json_schema' };
            }
            catch (err) {
                // 400/422 to a json_schema request from a server never seen to accept it: no structured output there.
                if (!(err instanceof JudgeTransportError &&
                    err.kind === 'rejected' &&
                    (err.status === 400 || err.status === 422) &&
                    this.jsonSchema === undefined))
                    throw err;
                this.jsonSchema = false;
            }
        }
        const withInstruction = [...messages, { role: 'user', content: TEXT_MODE_INSTRUCTION }];
        return { text: await this.complete(withInstruction, undefined, usage), mode: 'text' };
    }
    async complete(messages, structured, usage) {
        const body = {
            model: this.model,
            messages,
            temperature: this.opts.temperature ?? 0,
            ...(structured
                ? {
                    response_format: {
                        type: 'json_schema',
                        json_schema: { name: structured.name, strict: true, schema: structured.schema },
                    },
                }
                : {}),
        };
        const once = async () => {
            const res = await withStop(this.opts.signal, (signal) => this.api.chat.completions.create(body, { signal }));
            usage.inputTokens += res.usage?.prompt_tokens ?? estimateTokens(messages.map((m) => m.content).join('\n'));
            const msg = res.choices[0]?.message;
            const text = msg?.content ?? '';
            usage.outputTokens += res.usage?.completion_tokens ?? estimateTokens(text);
            if (!text && msg?.refusal)
                return `refused: ${msg.refusal}`;
            return text;
        };
        // Asked to wait longer than max_retry_wait: stop now, the items stay pending for the next run.
        return withRetries(once, { attempts: this.opts.maxRetries + 1, backoff: this.backoff, maxRetryAfterMs: this.opts.maxRetryWaitMs }, {
            error: toTransportError,
            transient: (e) => ({
                retry: e.kind !== 'rejected',
                ...(e.retryAfterMs !== undefined ? { retryAfterMs: e.retryAfterMs } : {}),
            }),
            sleep: this.sleep,
            random: this.random,
        });
    }
}
/** What a request or wait cut short by the stop signal throws: the run ends, its items stay pending. */
const stopping = () => new JudgeTransportError('connection', 'toolwatch is stopping');
/**
 * Runs one request with a signal of its own, linked to the stop signal only while it runs (the SDK
 * listens on the signal it is given and does not let go: one shared signal would gather a listener
 * per request).
 */
async function withStop(stop, run) {
    if (stop?.aborted)
        throw stopping();
    const own = new AbortController();
    const onStop = () => own.abort();
    stop?.addEventListener('abort', onStop, { once: true });
    try {
        return await run(own.signal);
    }
    finally {
        stop?.removeEventListener('abort', onStop);
    }
}
/** A wait between attempts that ends (rejecting) when the signal aborts, so it cannot hold a shutdown. */
function abortableSleep(ms, signal) {
    return new Promise((resolve, reject) => {
        if (signal?.aborted)
            return reject(stopping());
        const t = setTimeout(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
        }, ms);
        const onAbort = () => {
            clearTimeout(t);
            reject(stopping());
        };
        signal?.addEventListener('abort', onAbort, { once: true });
    });
}
/** ~4 characters per token: used for budgets and when a server reports no usage. */
export function estimateTokens(text) {
    return Math.ceil(text.length / 4);
}
/** An SDK failure as the judge's transport error: 429 rate_limited; 5xx, 408 and 409 server; other statuses rejected. */
function toTransportError(err) {
    if (err instanceof JudgeTransportError)
        return err;
    // Aborted by the stop signal (the SDK's user-abort error): not the judge's fault, and never retried.
    if (err instanceof OpenAI.APIUserAbortError)
        return stopping();
    if (err instanceof OpenAI.APIConnectionTimeoutError)
        return new JudgeTransportError('timeout', 'the judge did not answer in time');
    if (err instanceof OpenAI.APIConnectionError)
        return new JudgeTransportError('connection', `cannot reach the judge: ${err.message}`);
    if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
        const s = err.status;
        const msg = `judge answered HTTP ${s}: ${String(err.message).slice(0, 300)}`;
        const v = classifyStatus(s, { headers: err.headers, nowMs: Date.now(), alsoRetry: [409] });
        if (v.kind !== 'retry')
            return new JudgeTransportError('rejected', msg, s);
        return new JudgeTransportError(s === 429 ? 'rate_limited' : 'server', msg, s, v.retryAfterMs);
    }
    return new JudgeTransportError('rejected', `judge request failed: ${err?.message ?? String(err)}`);
}
//# sourceMappingURL=client.js.map