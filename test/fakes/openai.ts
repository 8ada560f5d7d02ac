/**
 * A local OpenAI-compatible chat-completions server on 127.0.0.1 for the judge tests. It records
 * every request's raw bytes (what would have left the process) and answers from a script: a
 * function of the request number and parsed body returning a reply, or 'hang' (never answers,
 * to exercise the client's timeout).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface Received {
  raw: string;
  body: {
    model?: string;
    messages?: { role: string; content: string }[];
    response_format?: { type: string; json_schema?: { strict?: boolean; schema?: unknown } };
  };
  headers: IncomingMessage['headers'];
  atMs: number;
}

export type Reply =
  | {
      status?: number;
      headers?: Record<string, string>;
      content?: string;
      error?: string;
      usage?: { prompt_tokens: number; completion_tokens: number };
    }
  | 'hang';

export interface FakeOpenAI {
  baseUrl: string;
  received: Received[];
  script: (n: number, req: Received) => Reply;
  close(): Promise<void>;
}

export const verdictJson = (
  v: Partial<{ reached_goal: boolean; unnecessary_calls: number; dangerous_calls: number; reasoning: string }> = {},
): string =>
  JSON.stringify({
    reached_goal: true,
    unnecessary_calls: 0,
    dangerous_calls: 0,
    reasoning: 'The agent answered the task efficiently.',
    ...v,
  });

export async function startFakeOpenAI(
  script: FakeOpenAI['script'] = () => ({ content: verdictJson() }),
): Promise<FakeOpenAI> {
  const received: Received[] = [];
  let server: Server;
  const fake: FakeOpenAI = {
    baseUrl: '',
    received,
    script,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const r: Received = { raw, body: JSON.parse(raw) as Received['body'], headers: req.headers, atMs: Date.now() };
      received.push(r);
      const reply = fake.script(received.length, r);
      if (reply === 'hang') return; // the client's timeout must fire
      const status = reply.status ?? 200;
      const headers = { 'content-type': 'application/json', ...(reply.headers ?? {}) };
      if (status !== 200) {
        res.writeHead(status, headers).end(
          JSON.stringify({
            error: {
              message: reply.error ?? `status ${status}`,
              type: 'invalid_request_error',
              param: null,
              code: null,
            },
          }),
        );
        return;
      }
      const usage = reply.usage ?? { prompt_tokens: 1000, completion_tokens: 50 };
      res.writeHead(200, headers).end(
        JSON.stringify({
          id: `chatcmpl-${received.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: r.body.model ?? 'judge',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: reply.content ?? '', refusal: null },
              finish_reason: 'stop',
              logprobs: null,
            },
          ],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  fake.baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/v1`;
  return fake;
}
