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
import type OpenAI from 'openai';
import type { BackoffPolicy } from '../delivery/backoff.js';
import { classifyStatus } from '../delivery/http-status.js';
import { withRetries } from '../delivery/retry.js';
import type { ChatMessage } from './prompt.js';
import type { Verdict } from './types.js';
import { parseVerdict, VERDICT_RESPONSE_SCHEMA } from './verdict.js';

type Sdk = typeof import('openai').default;
/** Set once the SDK has loaded; the error mapping below recognises its error classes through it. */
let sdk: Sdk | undefined;
let loading: Promise<Sdk> | undefined;
/**
 * The SDK loads with the first request, not with this module: an instance whose judge is off never
 * pays for it (≈ 6 MB of resident memory and its share of start-up).
 */
function loadSdk(): Promise<Sdk> {
  loading ??= import('openai').then((m) => (sdk = m.default));
  return loading;
}

export type TransportKind = 'rate_limited' | 'server' | 'timeout' | 'connection' | 'rejected';

/** The request could not be answered now; the trajectory stays pending. */
export class JudgeTransportError extends Error {
  constructor(
    readonly kind: TransportKind,
    message: string,
    readonly status?: number,
    /** The server's Retry-After, when it sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'JudgeTransportError';
  }
}

/** What a judge must answer: the strict structured-output schema and the validator of the answer text. */
export interface VerdictContract<T> {
  /** json_schema.name in the request. */
  name: string;
  schema: Record<string, unknown>;
  parse(text: string): { ok: true; value: T } | { ok: false; error: string };
}

/** The production judge's verdict (reached_goal, unnecessary_calls, dangerous_calls). */
export const TRAJECTORY_CONTRACT: VerdictContract<Verdict> = {
  name: 'trajectory_verdict',
  schema: VERDICT_RESPONSE_SCHEMA as unknown as Record<string, unknown>,
  parse: parseVerdict,
};

export interface JudgeAnswerOf<T> {
  verdict?: T;
  /** Set when the answers were not valid verdicts (after the one retry). */
  invalid?: string;
  inputTokens: number;
  outputTokens: number;
  mode: 'json_schema' | 'text';
}

export interface JudgeAnswer {
  verdict?: Verdict;
  /** Set when the answers were not valid verdicts (after the one retry). */
  invalid?: string;
  inputTokens: number;
  outputTokens: number;
  mode: 'json_schema' | 'text';
}

export interface JudgeClient {
  readonly model: string;
  judge(messages: readonly ChatMessage[]): Promise<JudgeAnswer>;
  /**
   * Loads what the first request would load, so that it happens at start-up rather than inside the
   * first judge run on ingest's event loop. Never fails: a request later loads what this could not.
   */
  warm?(): Promise<void>;
}

export interface OpenAIJudgeOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  maxRetries: number;
  maxRetryWaitMs: number;
  /** First backoff step (doubles per retry, capped at 30 × base). */
  backoffBaseMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** The HTTP layer (tests may wrap it); defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Aborted when toolwatch stops: a request in flight and a wait between attempts end at once. */
  signal?: AbortSignal;
  /** Sampling temperature of every judge request (default 0). */
  temperature?: number;
}

const TEXT_MODE_INSTRUCTION =
  'Reply with only the JSON object described above: no code fence, no text before or after it.';

export class OpenAIJudgeClient implements JudgeClient {
  readonly model: string;
  /** Made with the first request (loadSdk). */
  private api: Promise<OpenAI> | undefined;
  /** undefined until the server has answered a json_schema request either way. */
  private jsonSchema: boolean | undefined;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  /** base × 2^n, at most 30 × base, each delay 75–100 % of that at random. */
  private readonly backoff: BackoffPolicy;

  constructor(private readonly opts: OpenAIJudgeOptions) {
    this.model = opts.model;
    this.sleep = opts.sleep ?? ((ms) => abortableSleep(ms, opts.signal));
    this.random = opts.random ?? Math.random;
    const base = opts.backoffBaseMs ?? 1000;
    this.backoff = { baseMs: base, maxMs: base * 30, jitter: 0.25 };
  }

  private client(): Promise<OpenAI> {
    const opts = this.opts;
    this.api ??= loadSdk().then(
      (OpenAI) =>
        new OpenAI({
          baseURL: opts.baseUrl,
          // Local servers (vLLM, Ollama) take any key; the SDK insists on one.
          apiKey: opts.apiKey ?? 'no-key',
          maxRetries: 0,
          timeout: opts.timeoutMs,
          ...(opts.fetch ? { fetch: opts.fetch } : {}),
        }),
    );
    return this.api;
  }

  async judge(messages: readonly ChatMessage[]): Promise<JudgeAnswer> {
    return this.judgeAs(messages, TRAJECTORY_CONTRACT);
  }

  /**
   * The SDK and its client, and Node's own fetch (its `Headers` and `Request` load Node's bundled
   * HTTP client the first time they are used): in a fresh instance the first judge run paid for all
   * three inside one stretch of the event loop, ingest waiting behind it (stalls of 184 and 191 ms in
   * the benchmark's background phase under a CPU profile, against 56–60 ms in runs without them).
   */
  async warm(): Promise<void> {
    try {
      await this.client();
      new Headers({ 'content-type': 'application/json' });
      new Request(this.opts.baseUrl, { method: 'POST', body: '{}' });
    } catch {
      // A bad base URL, an SDK that did not load: the first request reports it, as it did.
    }
  }

  /** The same retries, fallback and one re-ask, for any verdict contract (the eval judge's decision verdict). */
  async judgeAs<T>(messages: readonly ChatMessage[], contract: VerdictContract<T>): Promise<JudgeAnswerOf<T>> {
    const usage = { inputTokens: 0, outputTokens: 0 };
    const first = await this.ask([...messages], usage, contract);
    let parsed = contract.parse(first.text);
    if (parsed.ok) return { verdict: parsed.value, ...usage, mode: first.mode };
    // One more chance, told what was wrong.
    const retry: ChatMessage[] = [
      ...messages,
      { role: 'assistant', content: first.text.slice(0, 4000) },
      { role: 'user', content: `That is not a valid verdict (${parsed.error}). ${TEXT_MODE_INSTRUCTION}` },
    ];
    const second = await this.ask(retry, usage, contract);
    parsed = contract.parse(second.text);
    if (parsed.ok) return { verdict: parsed.value, ...usage, mode: second.mode };
    return { invalid: parsed.error, ...usage, mode: second.mode };
  }

  private async ask<T>(
    messages: ChatMessage[],
    usage: { inputTokens: number; outputTokens: number },
    contract: VerdictContract<T>,
  ): Promise<{ text: string; mode: JudgeAnswer['mode'] }> {
    if (this.jsonSchema !== false) {
      try {
        const text = await this.complete(messages, contract, usage);
        this.jsonSchema = true;
        return { text, mode: 'json_schema' };
      } catch (err) {
        // 400/422 to a json_schema request from a server never seen to accept it: no structured output there.
        if (
          !(
            err instanceof JudgeTransportError &&
            err.kind === 'rejected' &&
            (err.status === 400 || err.status === 422) &&
            this.jsonSchema === undefined
          )
        )
          throw err;
        this.jsonSchema = false;
      }
    }
    const withInstruction: ChatMessage[] = [...messages, { role: 'user', content: TEXT_MODE_INSTRUCTION }];
    return { text: await this.complete(withInstruction, undefined, usage), mode: 'text' };
  }

  private async complete<T>(
    messages: ChatMessage[],
    structured: VerdictContract<T> | undefined,
    usage: { inputTokens: number; outputTokens: number },
  ): Promise<string> {
    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
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
    const once = async (): Promise<string> => {
      const api = await this.client();
      const res = await withStop(this.opts.signal, (signal) => api.chat.completions.create(body, { signal }));
      usage.inputTokens += res.usage?.prompt_tokens ?? estimateTokens(messages.map((m) => m.content).join('\n'));
      const msg = res.choices[0]?.message;
      const text = msg?.content ?? '';
      usage.outputTokens += res.usage?.completion_tokens ?? estimateTokens(text);
      if (!text && msg?.refusal) return `refused: ${msg.refusal}`;
      return text;
    };
    // Asked to wait longer than max_retry_wait: stop now, the items stay pending for the next run.
    return withRetries(
      once,
      { attempts: this.opts.maxRetries + 1, backoff: this.backoff, maxRetryAfterMs: this.opts.maxRetryWaitMs },
      {
        error: toTransportError,
        transient: (e) => ({
          retry: e.kind !== 'rejected',
          ...(e.retryAfterMs !== undefined ? { retryAfterMs: e.retryAfterMs } : {}),
        }),
        sleep: this.sleep,
        random: this.random,
      },
    );
  }
}

/** What a request or wait cut short by the stop signal throws: the run ends, its items stay pending. */
const stopping = () => new JudgeTransportError('connection', 'toolwatch is stopping');

/**
 * Runs one request with a signal of its own, linked to the stop signal only while it runs (the SDK
 * listens on the signal it is given and does not let go: one shared signal would gather a listener
 * per request).
 */
async function withStop<T>(stop: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (stop?.aborted) throw stopping();
  const own = new AbortController();
  const onStop = () => own.abort();
  stop?.addEventListener('abort', onStop, { once: true });
  try {
    return await run(own.signal);
  } finally {
    stop?.removeEventListener('abort', onStop);
  }
}

/** A wait between attempts that ends (rejecting) when the signal aborts, so it cannot hold a shutdown. */
function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(stopping());
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
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** An SDK failure as the judge's transport error: 429 rate_limited; 5xx, 408 and 409 server; other statuses rejected. */
function toTransportError(err: unknown): JudgeTransportError {
  if (err instanceof JudgeTransportError) return err;
  // Not loaded: the SDK's import itself failed, so none of its errors can be here.
  const OpenAI = sdk;
  if (!OpenAI)
    return new JudgeTransportError('rejected', `judge client unavailable: ${(err as Error)?.message ?? String(err)}`);
  // Aborted by the stop signal (the SDK's user-abort error): not the judge's fault, and never retried.
  if (err instanceof OpenAI.APIUserAbortError) return stopping();
  if (err instanceof OpenAI.APIConnectionTimeoutError)
    return new JudgeTransportError('timeout', 'the judge did not answer in time');
  if (err instanceof OpenAI.APIConnectionError)
    return new JudgeTransportError('connection', `cannot reach the judge: ${err.message}`);
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    const s = err.status;
    const msg = `judge answered HTTP ${s}: ${String(err.message).slice(0, 300)}`;
    const v = classifyStatus(s, { headers: err.headers, nowMs: Date.now(), alsoRetry: [409] });
    if (v.kind !== 'retry') return new JudgeTransportError('rejected', msg, s);
    return new JudgeTransportError(s === 429 ? 'rate_limited' : 'server', msg, s, v.retryAfterMs);
  }
  return new JudgeTransportError('rejected', `judge request failed: ${(err as Error)?.message ?? String(err)}`);
}
