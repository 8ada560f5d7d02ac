/**
 * A local server speaking Anthropic's Messages protocol (POST /v1/messages): requires the
 * `anthropic-version` header and a key (`x-api-key`, or `Authorization: Bearer` as the SDK sends
 * it); answers `content` blocks (text, tool_use with an object `input`), `stop_reason` (end_turn,
 * tool_use, refusal) and `usage`; errors as {type: "error", error: {type, message}} with the
 * documented types (rate_limit_error with Retry-After, api_error, overloaded_error 529 …).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startScripted, type FakeServer, type Protocol, type Reply, type Script } from './scripted.js';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function lastUserText(body: Record<string, unknown>): string {
  const msgs = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: unknown }[]) : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i]!;
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      const texts = m.content
        .filter((b) => (b as { type?: string }).type === 'text')
        .map((b) => (b as { text: string }).text);
      if (texts.length) return texts.join('');
    }
  }
  return '';
}

export function messagesProtocol(apiKey?: string): Protocol {
  return {
    path: '/v1/messages',
    key: lastUserText,
    turn: (body) =>
      Array.isArray(body.messages)
        ? body.messages.filter((m) => (m as { role?: string }).role === 'assistant').length
        : 0,
    check(headers: IncomingMessage['headers']): Reply | undefined {
      if (!headers['anthropic-version']) return { status: 400, message: 'anthropic-version: header is required' };
      const given =
        headers['x-api-key'] ??
        (headers.authorization?.startsWith('Bearer ') ? headers.authorization.slice(7) : undefined);
      if (!given || (apiKey !== undefined && given !== apiKey)) return { status: 401, message: 'invalid x-api-key' };
      return undefined;
    },
    render(reply, body, n, res: ServerResponse) {
      const headers = { 'content-type': 'application/json', 'request-id': `req_${n}` };
      if ('status' in reply) {
        const type = ERROR_TYPES[reply.status] ?? 'api_error';
        res
          .writeHead(reply.status, { ...headers, ...(reply.headers ?? {}) })
          .end(JSON.stringify({ type: 'error', error: { type, message: reply.message ?? `status ${reply.status}` } }));
        return;
      }
      if (body.stream === true) {
        streamReply(reply, body, n, res);
        return;
      }
      let content: Record<string, unknown>[];
      let stop = 'end_turn';
      if ('calls' in reply) {
        content = [
          ...(reply.text ? [{ type: 'text', text: reply.text }] : []),
          ...reply.calls.map((c, i) => ({
            type: 'tool_use',
            id: c.id ?? `toolu_${n}_${i + 1}`,
            name: c.name,
            // The protocol carries an object; a scripted string is sent as the object it encodes.
            input: typeof c.arguments === 'string' ? (JSON.parse(c.arguments) as unknown) : c.arguments,
          })),
        ];
        stop = 'tool_use';
      } else if ('refusal' in reply) {
        content = reply.refusal ? [{ type: 'text', text: reply.refusal }] : [];
        stop = 'refusal';
      } else content = [{ type: 'text', text: reply.text }];
      res.writeHead(200, headers).end(
        JSON.stringify({
          id: `msg_${n}`,
          type: 'message',
          role: 'assistant',
          model: typeof body.model === 'string' ? body.model : 'fake',
          content,
          stop_reason: stop,
          stop_sequence: null,
          usage: { input_tokens: 200, output_tokens: 30 },
        }),
      );
    },
  };
}

/**
 * `stream: true`: server-sent events as Anthropic sends them — `message_start` (the message with
 * empty content and the input usage), a `ping`, per block `content_block_start` (text with "", a
 * tool_use with input {}), `content_block_delta` (text_delta pieces; input_json_delta pieces of the
 * arguments, the first one empty), `content_block_stop`, then `message_delta` (stop_reason, output
 * usage) and `message_stop`. A `cut` reply drops the connection halfway through the arguments; a
 * `streamError` reply sends `event: error` there and ends the stream.
 */
function streamReply(
  reply: Exclude<Reply, 'hang' | { status: number } | { body: unknown }>,
  body: Record<string, unknown>,
  n: number,
  res: ServerResponse,
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${n}` });
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('message_start', {
    message: {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model: typeof body.model === 'string' ? body.model : 'fake',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 200, output_tokens: 1 },
    },
  });
  send('ping', {});
  let index = 0;
  const textBlock = (t: string) => {
    send('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const piece of t.match(/.{1,5}/gs) ?? [])
      send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    send('content_block_stop', { index });
    index++;
  };
  let stop = 'end_turn';
  if ('calls' in reply) {
    if (reply.text) textBlock(reply.text);
    for (const [i, c] of reply.calls.entries()) {
      const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
      const half = Math.ceil(args.length / 2);
      send('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: c.id ?? `toolu_${n}_${i + 1}`, name: c.name, input: {} },
      });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: args.slice(0, half) } });
      if (reply.streamError) {
        send('error', { error: reply.streamError });
        res.end();
        return;
      }
      if (reply.cut) {
        // Once what was written has left: the connection drops, no message_stop.
        res.write('', () => res.destroy());
        return;
      }
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: args.slice(half) } });
      send('content_block_stop', { index });
      index++;
    }
    stop = 'tool_use';
  } else if ('refusal' in reply) {
    if (reply.refusal) textBlock(reply.refusal);
    stop = 'refusal';
  } else textBlock(reply.text);
  send('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 30 } });
  send('message_stop', {});
  res.end();
}

/** Base URL without /v1, as the Anthropic SDK expects (toolwatch strips a trailing /v1 too). */
export function startAnthropicMessages(script: Script, opts: { apiKey?: string } = {}): Promise<FakeServer> {
  return startScripted(messagesProtocol(opts.apiKey), script, '');
}
