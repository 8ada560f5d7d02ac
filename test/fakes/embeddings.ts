/**
 * A local OpenAI-compatible embeddings server (POST /v1/embeddings {model, input: string |
 * string[]}): answers {object: "list", data: [{object: "embedding", index, embedding}], model,
 * usage: {prompt_tokens, total_tokens}} with the vectors the test gives per text; a text it has no
 * vector for is a 400 (so a test cannot pass on an invented one); errors as {error: {message,
 * type}}; `failNext` answers the next requests with a status.
 */
import { createServer, type Server } from 'node:http';

export interface FakeEmbeddings {
  baseUrl: string;
  /** The inputs of every request, in order. */
  received: string[][];
  vectors: Map<string, number[]>;
  failNext: number[];
  close(): Promise<void>;
}

export async function startEmbeddings(vectors: Record<string, number[]>): Promise<FakeEmbeddings> {
  let server: Server;
  const fake: FakeEmbeddings = {
    baseUrl: '',
    received: [],
    vectors: new Map(Object.entries(vectors)),
    failNext: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const error = (res: import('node:http').ServerResponse, status: number, message: string) =>
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(
        JSON.stringify({ error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error' } }),
      );
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') return error(res, 404, `no route ${req.url}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: string; input?: unknown };
      const input = typeof body.input === 'string' ? [body.input] : (body.input as string[]);
      fake.received.push(input);
      const status = fake.failNext.shift();
      if (status) return error(res, status, `status ${status}`);
      const missing = input.find((t) => !fake.vectors.has(t));
      if (missing !== undefined) return error(res, 400, `fake: no vector for ${JSON.stringify(missing)}`);
      const tokens = input.reduce((n, t) => n + t.split(/\s+/).length, 0);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          data: input.map((t, index) => ({ object: 'embedding', index, embedding: fake.vectors.get(t) })),
          model: body.model,
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  fake.baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/v1`;
  return fake;
}
