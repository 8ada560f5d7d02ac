/**
 * A local server speaking OpenAI's Responses API (POST /v1/responses): `output` items —
 * `function_call` {id, call_id, name, arguments (a string, so broken JSON is possible)} and
 * `message` {content: [{type: output_text | refusal}]} — `status`, `usage` {input_tokens,
 * output_tokens, total_tokens}; errors as {error: {message, type, param, code}} with the status,
 * and Retry-After on 429 when scripted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startScripted, type FakeServer, type Protocol, type Script } from './scripted.js';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  404: 'not_found_error',
  429: 'rate_limit_exceeded',
};

type Item = { type?: string; role?: string; content?: unknown };

export function responsesProtocol(): Protocol {
  return {
    path: '/v1/responses',
    key(body) {
      const items = (Array.isArray(body.input) ? body.input : []) as Item[];
      for (let i = items.length - 1; i >= 0; i--) {
        const it = items[i]!;
        if (it.role === 'user' && typeof it.content === 'string') return it.content;
      }
      return typeof body.input === 'string' ? body.input : '';
    },
    // A model turn already in the conversation: each run of function_call items, each assistant message.
    turn(body) {
      const items = (Array.isArray(body.input) ? body.input : []) as Item[];
      let n = 0;
      items.forEach((it, i) => {
        if (it.role === 'assistant') n++;
        else if (it.type === 'function_call' && items[i - 1]?.type !== 'function_call') n++;
      });
      return n;
    },
    check: (_h: IncomingMessage['headers']) => undefined,
    render(reply, body, n, res: ServerResponse) {
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) }).end(
          JSON.stringify({
            error: {
              message: reply.message ?? `status ${reply.status}`,
              type: ERROR_TYPES[reply.status] ?? 'server_error',
              param: null,
              code: null,
            },
          }),
        );
        return;
      }
      const output: unknown[] = [];
      const text = 'calls' in reply ? reply.text : 'text' in reply ? reply.text : undefined;
      if (text !== undefined)
        output.push({
          type: 'message',
          id: `msg_${n}`,
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text, annotations: [] }],
        });
      if ('refusal' in reply)
        output.push({
          type: 'message',
          id: `msg_${n}`,
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'refusal', refusal: reply.refusal }],
        });
      if ('calls' in reply)
        for (const [i, c] of reply.calls.entries())
          output.push({
            type: 'function_call',
            id: `fc_${n}_${i + 1}`,
            call_id: c.id ?? `call_${n}_${i + 1}`,
            name: c.name,
            arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
            status: 'completed',
          });
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `resp_${n}`,
          object: 'response',
          created_at: Math.floor(Date.now() / 1000),
          status: 'completed',
          model: typeof body.model === 'string' ? body.model : 'fake',
          output,
          usage: { input_tokens: 90, output_tokens: 15, total_tokens: 105 },
        }),
      );
    },
  };
}

export function startResponses(script: Script): Promise<FakeServer> {
  return startScripted(responsesProtocol(), script, '/v1');
}
