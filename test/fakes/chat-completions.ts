/**
 * A local server speaking OpenAI's chat-completions protocol (POST /v1/chat/completions), as vLLM,
 * Ollama, OpenRouter and LiteLLM do: `choices[0].message` with `tool_calls[].function.arguments`
 * as a string (so a broken-JSON reply is possible, as from real models), `refusal`, `usage`; errors
 * as {error: {message, type, param, code}} with the status, and Retry-After on 429 when scripted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startScripted, type FakeServer, type Protocol, type Reply, type Script } from './scripted.js';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'permission_error',
  404: 'not_found_error',
  422: 'invalid_request_error',
  429: 'rate_limit_exceeded',
};

function userText(m: unknown): string | undefined {
  const msg = m as { role?: string; content?: unknown };
  if (msg.role !== 'user') return undefined;
  if (typeof msg.content === 'string') return msg.content;
  if (Array.isArray(msg.content)) return msg.content.map((p) => (p as { text?: string }).text ?? '').join('');
  return undefined;
}

export function chatCompletionsProtocol(apiKey?: string): Protocol {
  return {
    path: '/v1/chat/completions',
    key(body) {
      const msgs = Array.isArray(body.messages) ? body.messages : [];
      for (let i = msgs.length - 1; i >= 0; i--) {
        const t = userText(msgs[i]);
        if (t !== undefined) return t;
      }
      return '';
    },
    turn: (body) =>
      Array.isArray(body.messages)
        ? body.messages.filter((m) => (m as { role?: string }).role === 'assistant').length
        : 0,
    check(headers: IncomingMessage['headers']): Reply | undefined {
      if (apiKey !== undefined && headers.authorization !== `Bearer ${apiKey}`) {
        // As OpenAI does: the answer quotes the key it was given.
        const given = headers.authorization?.replace(/^Bearer /, '') ?? '';
        return { status: 401, message: `Incorrect API key provided: ${given}.` };
      }
      return undefined;
    },
    render(reply, body, n, res: ServerResponse) {
      if ('status' in reply) {
        const type = ERROR_TYPES[reply.status] ?? 'server_error';
        res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) }).end(
          JSON.stringify({
            error: { message: reply.message ?? `status ${reply.status}`, type, param: null, code: null },
          }),
        );
        return;
      }
      if (body.stream === true) {
        streamReply(reply, body, n, res);
        return;
      }
      const message: Record<string, unknown> = { role: 'assistant', content: null, refusal: null };
      let finish = 'stop';
      if ('calls' in reply) {
        message.content = reply.text ?? null;
        message.tool_calls = reply.calls.map((c, i) => ({
          id: c.id ?? `call_${n}_${i + 1}`,
          type: 'function',
          function: {
            name: c.name,
            arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
          },
        }));
        finish = 'tool_calls';
      } else if ('refusal' in reply) message.refusal = reply.refusal;
      else message.content = reply.text;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${n}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: typeof body.model === 'string' ? body.model : 'fake',
          choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
          usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
        }),
      );
    },
  };
}

/** Base URL ends in /v1, as OpenAI-compatible servers are configured. */
export function startChatCompletions(script: Script, opts: { apiKey?: string } = {}): Promise<FakeServer> {
  return startScripted(chatCompletionsProtocol(opts.apiKey), script, '/v1');
}

/**
 * `stream: true`: server-sent events as OpenAI sends them — `chat.completion.chunk` objects with
 * `choices[0].delta` (role first, then content pieces, tool_calls by index: id, type and name in
 * the first delta of a call, arguments in pieces), `finish_reason` on the last choice chunk, a usage
 * chunk when `stream_options.include_usage`, then `data: [DONE]`. A `cut` reply drops the
 * connection halfway through the arguments.
 */
function streamReply(
  reply: Exclude<import('./scripted.js').Reply, 'hang' | { status: number }>,
  body: Record<string, unknown>,
  n: number,
  res: ServerResponse,
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const base = {
    id: `chatcmpl-${n}`,
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: String(body.model ?? 'fake'),
  };
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    send([{ index: 0, delta: d, finish_reason: finish, logprobs: null }]);
  delta({ role: 'assistant', content: '' });
  let finish = 'stop';
  const text = 'text' in reply ? reply.text : undefined;
  if (text) for (const piece of text.match(/.{1,5}/gs) ?? []) delta({ content: piece });
  if ('refusal' in reply) delta({ refusal: reply.refusal });
  if ('calls' in reply) {
    finish = 'tool_calls';
    for (const [i, c] of reply.calls.entries()) {
      const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
      const half = Math.ceil(args.length / 2);
      delta({
        tool_calls: [
          { index: i, id: c.id ?? `call_${n}_${i + 1}`, type: 'function', function: { name: c.name, arguments: '' } },
        ],
      });
      delta({ tool_calls: [{ index: i, function: { arguments: args.slice(0, half) } }] });
      if (reply.cut) {
        // Once what was written has left: the connection drops, no finish_reason, no [DONE].
        res.write('', () => res.destroy());
        return;
      }
      delta({ tool_calls: [{ index: i, function: { arguments: args.slice(half) } }] });
    }
  }
  delta({}, finish);
  if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage)
    send([], { usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } });
  res.end('data: [DONE]\n\n');
}
