/**
 * Gemini `generateContent` (POST {base}/models/{model}:generateContent, key in `x-goog-api-key`)
 * with plain fetch — Google's SDK would add a dependency for one POST. System messages go to
 * `systemInstruction`; the conversation is `contents` of role user | model with `text`,
 * `functionCall {id?, name, args}` and `functionResponse {id?, name, response}` parts; tools are one
 * `{functionDeclarations}` entry whose `parameters` are the suite's schemas rewritten into Gemini's
 * Schema subset (gemini-schema.ts; each change recorded on the turn as `transform`); tool_choice is
 * `toolConfig.functionCallingConfig` (AUTO, ANY, NONE, ANY + allowedFunctionNames); temperature and
 * max_tokens go in `generationConfig`. `args` arrive as an object and are kept as they are.
 *
 * Answers: the first candidate's parts — functionCall parts are calls (a Gemini 3 `thoughtSignature`
 * kept on the call and sent back with it, as the protocol requires), text parts the text. A prompt
 * blocked (`promptFeedback.blockReason`, no candidates) or a candidate stopped by a safety filter
 * with nothing said is a refusal; `MALFORMED_FUNCTION_CALL` is the model's broken call, recorded as
 * a call whose arguments are the text Gemini reports (so the checker counts it InvalidJson); no
 * candidate and no block reason is a bad response. Errors: `{error: {code, message, status,
 * details}}`; 429 waits Retry-After, else the `google.rpc.RetryInfo` retryDelay; 5xx, timeouts and
 * connection failures are retried; 400 API_KEY_INVALID and 401/403 are auth.
 */
import type { ToolDef } from '../../model.js';
import { retryAfterMs, withRetries, type Attempt } from '../retry.js';
import type { ToolChoice } from '../tool-choice.js';
import type { CanonicalCall, CanonicalOutcome, Message, ProviderErrorCode, Usage } from '../types.js';
import { HarnessError, type AdapterFactory, type AdapterRequest, type AdapterResult } from './adapter.js';
import { toGeminiSchema } from './gemini-schema.js';
import type { Failure } from './sdk-errors.js';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

type Part = Record<string, unknown>;
type Content = { role: 'user' | 'model'; parts: Part[] };

function argsObject(c: CanonicalCall): Record<string, unknown> {
  let v = c.arguments;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      v = undefined;
    }
  }
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new HarnessError(
      `history call ${c.name} (${c.id ?? 'no id'}): arguments are not a JSON object; a functionCall's args must be one`,
    );
  return v as Record<string, unknown>;
}

/** A tool result as Gemini's functionResponse.response (an object): JSON objects as they are, anything else wrapped. */
function responseObject(content: string, isError: boolean | undefined): Record<string, unknown> {
  let v: unknown = content;
  try {
    v = JSON.parse(content);
  } catch {
    // Plain text stays text.
  }
  if (v && typeof v === 'object' && !Array.isArray(v) && !isError) return v as Record<string, unknown>;
  return isError ? { error: v } : { output: v };
}

/** Canonical messages → {systemInstruction, contents}; consecutive same-role turns are merged. */
export function toGeminiContents(messages: readonly Message[]): { system: string; contents: Content[] } {
  const system: string[] = [];
  const contents: Content[] = [];
  const names = new Map<string, string>();
  const push = (role: Content['role'], parts: Part[]) => {
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const m of messages) {
    if (m.role === 'system') system.push(m.content);
    else if (m.role === 'user') push('user', [{ text: m.content }]);
    else if (m.role === 'assistant') {
      const parts: Part[] = m.content ? [{ text: m.content }] : [];
      for (const c of m.toolCalls ?? []) {
        if (c.id) names.set(c.id, c.name);
        parts.push({
          functionCall: { ...(c.id ? { id: c.id } : {}), name: c.name, args: argsObject(c) },
          ...(typeof c.meta?.thoughtSignature === 'string' ? { thoughtSignature: c.meta.thoughtSignature } : {}),
        });
      }
      if (parts.length) push('model', parts);
    } else {
      const name = m.name ?? names.get(m.toolCallId);
      if (!name) throw new HarnessError(`tool result ${m.toolCallId}: a functionResponse needs the function's name`);
      push('user', [{ functionResponse: { id: m.toolCallId, name, response: responseObject(m.content, m.isError) } }]);
    }
  }
  return { system: system.join('\n\n'), contents };
}

export function toGeminiTools(tools: readonly ToolDef[]): { tools: unknown[]; changes: string[] } {
  const changes: string[] = [];
  const declarations = tools.map((t) => {
    const r = t.parameters === undefined ? undefined : toGeminiSchema(t.parameters);
    for (const c of r?.changes ?? []) changes.push(`${t.name}: ${c}`);
    return {
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      ...(r ? { parameters: r.schema } : {}),
    };
  });
  return { tools: [{ functionDeclarations: declarations }], changes };
}

/** auto → AUTO, required → ANY, none → NONE, {name} → ANY limited to that function. */
export function geminiToolConfig(c: ToolChoice): unknown {
  if (c === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (c === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  if (c === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [c.name] } };
}

const SAFETY_STOPS = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']);

interface Candidate {
  content?: { parts?: Part[] };
  finishReason?: string;
  finishMessage?: string;
}

export function fromGeminiResponse(res: unknown): CanonicalOutcome {
  const r = res as { candidates?: Candidate[]; promptFeedback?: { blockReason?: string } } | null;
  if (!r || typeof r !== 'object') return { kind: 'provider_error', code: 'bad_response', message: 'not an object' };
  const cand = Array.isArray(r.candidates) ? r.candidates[0] : undefined;
  if (!cand) {
    const block = r.promptFeedback?.blockReason;
    if (block) return { kind: 'refusal', text: `prompt blocked: ${block}` };
    return { kind: 'provider_error', code: 'bad_response', message: 'the answer has no candidates' };
  }
  const calls: CanonicalCall[] = [];
  const texts: string[] = [];
  for (const p of cand.content?.parts ?? []) {
    const fc = p.functionCall as { id?: unknown; name?: unknown; args?: unknown } | undefined;
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
    } else if (typeof p.text === 'string' && p.thought !== true) texts.push(p.text);
  }
  const text = texts.join('');
  if (calls.length) return { kind: 'tool_calls', calls, ...(text ? { text } : {}) };
  if (cand.finishReason === 'MALFORMED_FUNCTION_CALL') {
    const msg = cand.finishMessage ?? '';
    const name = /default_api\.([A-Za-z_][\w.-]*)\s*\(/.exec(msg)?.[1] ?? /([A-Za-z_][\w-]*)\s*\(/.exec(msg)?.[1] ?? '';
    return { kind: 'tool_calls', calls: [{ id: null, name, arguments: msg }], ...(text ? { text } : {}) };
  }
  if (cand.finishReason && SAFETY_STOPS.has(cand.finishReason) && !text)
    return { kind: 'refusal', text: `stopped: ${cand.finishReason}` };
  return { kind: 'text', text };
}

function usageOf(res: unknown): Usage | undefined {
  const u = (res as { usageMetadata?: Record<string, number> } | null)?.usageMetadata;
  if (!u) return undefined;
  // Thinking tokens are billed as output.
  return {
    inputTokens: u.promptTokenCount ?? 0,
    outputTokens: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0),
  };
}

interface GoogleError {
  code?: number;
  message?: string;
  status?: string;
  details?: { '@type'?: string; retryDelay?: string; reason?: string }[];
}

/** google.rpc.RetryInfo's retryDelay ("22s", "8.94s") in ms. */
function retryDelayMs(e: GoogleError | undefined): number | undefined {
  const d = e?.details?.find((x) => x['@type']?.endsWith('google.rpc.RetryInfo'))?.retryDelay;
  const m = typeof d === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(d) : null;
  return m ? Math.round(Number(m[1]) * 1000) : undefined;
}

type Failed = Extract<Attempt<never, Failure>, { ok: false }>;

function failure(
  code: ProviderErrorCode,
  message: string,
  retryable: boolean,
  response: unknown,
  status?: number,
): Failed {
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
export function classifyGeminiError(status: number, headers: Headers, text: string): Failed {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's page): kept as text.
  }
  const e = (body as { error?: GoogleError } | null)?.error;
  const response = { status, body };
  const msg = `HTTP ${status}${e?.status ? ` ${e.status}` : ''}: ${e?.message ?? text.slice(0, 200)}`;
  if (status === 429) {
    const f = failure('rate_limited', msg, true, response, status);
    const wait = retryAfterMs(headers) ?? retryDelayMs(e);
    return wait !== undefined ? { ...f, retryAfterMs: wait } : f;
  }
  if (status === 401 || status === 403 || e?.details?.some((d) => d.reason === 'API_KEY_INVALID'))
    return failure('auth', msg, false, response, status);
  if (status >= 500 || status === 408 || status === 409) return failure('server', msg, true, response, status);
  return failure('rejected', msg, false, response, status);
}

export const createGeminiAdapter: AdapterFactory = (spec, opts) => {
  const base = (spec.baseUrl ?? GEMINI_DEFAULT_BASE_URL).replace(/\/+$/, '');
  const url = `${base}/models/${encodeURIComponent(spec.model.replace(/^models\//, ''))}:generateContent`;
  const now = opts.now ?? Date.now;
  const send = async (body: unknown): Promise<Attempt<unknown, Failure>> => {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(opts.apiKey ? { 'x-goog-api-key': opts.apiKey } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
    } catch (err) {
      if ((err as Error).name === 'TimeoutError')
        return failure('timeout', 'the provider did not answer in time', true, null);
      return failure('connection', `cannot reach the provider: ${(err as Error).message}`, true, null);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      if ((err as Error).name === 'TimeoutError')
        return failure('timeout', 'the provider did not answer in time', true, null);
      return failure('connection', `the answer broke off: ${(err as Error).message}`, true, null);
    }
    if (!res.ok) return classifyGeminiError(res.status, res.headers, text);
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      return failure('bad_response', 'unreadable answer: not JSON', false, {
        status: res.status,
        body: text.slice(0, 2000),
      });
    }
  };
  return {
    provider: spec.provider,
    model: spec.model,
    async complete(req: AdapterRequest): Promise<AdapterResult> {
      let body: Record<string, unknown>;
      let changes: string[] = [];
      try {
        const { system, contents } = toGeminiContents(req.messages);
        const tools = req.tools.length ? toGeminiTools(req.tools) : undefined;
        changes = tools?.changes ?? [];
        const { generationConfig: extraGen, ...params } = (spec.params ?? {}) as Record<string, unknown>;
        const generationConfig = {
          ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
          ...(req.maxTokens !== undefined ? { maxOutputTokens: req.maxTokens } : {}),
          ...(extraGen && typeof extraGen === 'object' ? (extraGen as Record<string, unknown>) : {}),
        };
        body = {
          ...(system ? { systemInstruction: { parts: [{ text: system }] } } : {}),
          contents,
          ...(tools ? { tools: tools.tools, toolConfig: geminiToolConfig(req.toolChoice ?? 'auto') } : {}),
          ...(Object.keys(generationConfig).length ? { generationConfig } : {}),
          ...params,
        };
      } catch (err) {
        const outcome = { kind: 'provider_error' as const, code: 'harness' as const, message: (err as Error).message };
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
