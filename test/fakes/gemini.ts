/**
 * A local server speaking Gemini's generateContent REST protocol (POST
 * /v1beta/models/{model}:generateContent): a key in `x-goog-api-key`, else 403
 * PERMISSION_DENIED; answers `candidates[0].content` {role: "model", parts} with `functionCall`
 * {id, name, args (an object)} parts and text parts, `finishReason` (STOP; SAFETY for a scripted
 * refusal, with no content, as Gemini blocks an answer), `usageMetadata` {promptTokenCount,
 * candidatesTokenCount, totalTokenCount}, `modelVersion`, `responseId`; errors as {error: {code,
 * message, status, details}} with google.rpc status names, and a 429 carries google.rpc.RetryInfo
 * (retryDelay) unless the script sets Retry-After. Other shapes (a blocked prompt, empty
 * candidates, MALFORMED_FUNCTION_CALL) are scripted as `{body}`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startScripted, type FakeServer, type Protocol, type Reply, type Script } from './scripted.js';

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

type Content = { role?: string; parts?: { text?: string; functionCall?: unknown }[] };

export const GEMINI_PATH = /^\/v1beta\/models\/[^/:]+:generateContent$/;

export function geminiProtocol(o: { apiKey?: string; retryDelay?: string } = {}): Protocol {
  return {
    path: GEMINI_PATH,
    key(body) {
      const contents = (Array.isArray(body.contents) ? body.contents : []) as Content[];
      for (let i = contents.length - 1; i >= 0; i--) {
        const c = contents[i]!;
        const texts = (c.parts ?? []).filter((p) => typeof p.text === 'string').map((p) => p.text);
        if (c.role === 'user' && texts.length) return texts.join('');
      }
      return '';
    },
    turn: (body) =>
      Array.isArray(body.contents) ? (body.contents as Content[]).filter((c) => c.role === 'model').length : 0,
    check(headers: IncomingMessage['headers']): Reply | undefined {
      const given = headers['x-goog-api-key'];
      if (!given) return { status: 403, message: "Method doesn't allow unregistered callers. Please use an API key." };
      if (o.apiKey !== undefined && given !== o.apiKey)
        return { status: 400, message: 'API key not valid. Please pass a valid API key.' };
      return undefined;
    },
    render(reply, body, n, res: ServerResponse) {
      if ('status' in reply) {
        const details: unknown[] = [];
        if (reply.message?.startsWith('API key not valid'))
          details.push({
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
          });
        if (reply.status === 429 && !reply.headers?.['retry-after'])
          details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: o.retryDelay ?? '3s' });
        res
          .writeHead(reply.status, { 'content-type': 'application/json; charset=UTF-8', ...(reply.headers ?? {}) })
          .end(
            JSON.stringify({
              error: {
                code: reply.status,
                message: reply.message ?? `status ${reply.status}`,
                status: STATUS[reply.status] ?? 'UNKNOWN',
                ...(details.length ? { details } : {}),
              },
            }),
          );
        return;
      }
      const parts: Record<string, unknown>[] = [];
      let finishReason = 'STOP';
      if ('calls' in reply) {
        if (reply.text) parts.push({ text: reply.text });
        for (const [i, c] of reply.calls.entries())
          parts.push({
            functionCall: {
              id: c.id ?? `fc_${n}_${i + 1}`,
              name: c.name,
              // The protocol carries an object; a scripted string is sent as the object it encodes.
              args: typeof c.arguments === 'string' ? (JSON.parse(c.arguments) as unknown) : c.arguments,
            },
          });
      } else if ('refusal' in reply) finishReason = 'SAFETY';
      else parts.push({ text: reply.text });
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' }).end(
        JSON.stringify({
          candidates: [
            {
              ...(parts.length ? { content: { role: 'model', parts } } : {}),
              finishReason,
              index: 0,
              ...(finishReason === 'SAFETY'
                ? {
                    safetyRatings: [
                      { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
                    ],
                  }
                : {}),
            },
          ],
          usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 25, totalTokenCount: 145 },
          modelVersion: typeof body.model === 'string' ? body.model : 'gemini-fake',
          responseId: `resp_${n}`,
        }),
      );
    },
  };
}

/** Base URL ends in /v1beta, as Google's API is addressed. */
export function startGemini(script: Script, opts: { apiKey?: string; retryDelay?: string } = {}): Promise<FakeServer> {
  return startScripted(geminiProtocol(opts), script, '/v1beta');
}
