/**
 * Test doubles for the alert integration tests: a local HTTP server that answers like Slack's
 * incoming webhook (scripted: 200 "ok", 429 + Retry-After, 500, slow, held, 404 no_service,
 * 400 invalid_payload), and an agent that emits tool calls through the real OTel exporter.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OtelClient } from '../helpers/otel.js';

export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Answer only after this long (beyond the client's timeout = a slow Slack). */
  delayMs?: number;
  /** Never answer (until the server closes): the process on the other side dies mid-send. */
  hold?: boolean;
}

export interface Received {
  at: number;
  path: string;
  body: { text: string; blocks: { type: string; text?: { text: string }; fields?: { text: string }[]; elements?: { text: string }[] }[] } & Record<string, unknown>;
  answered: number | 'held';
}

export interface FakeSlack {
  url: string;
  received: Received[];
  /** Answers for the next requests, in order; afterwards 200 "ok". */
  script(...answers: Answer[]): void;
  close(): Promise<void>;
}

export async function fakeSlack(): Promise<FakeSlack> {
  const received: Received[] = [];
  const queue: Answer[] = [];
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = queue.shift() ?? { status: 200, body: 'ok' };
      const rec: Received = { at: Date.now(), path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'], answered: answer.hold ? 'held' : answer.status };
      received.push(rec);
      if (answer.hold) {
        held.add(res);
        return;
      }
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    script: (...answers) => queue.push(...answers),
    async close() {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const weather = {
  type: 'object',
  properties: { location: { type: 'string' } },
  required: ['location'],
  additionalProperties: false,
};
const definitions = JSON.stringify([{ type: 'function', name: 'get_weather', parameters: weather }]);
let seq = 0;

/**
 * One model span proposing `valid` good calls, `invalidJson` calls with broken JSON and
 * `mismatch` calls whose `location` is a number (SchemaMismatch at /location).
 */
export async function agentCalls(client: OtelClient, n: { valid?: number; invalidJson?: number; mismatch?: number }): Promise<void> {
  const parts: unknown[] = [];
  const add = (count: number | undefined, args: string) => {
    for (let i = 0; i < (count ?? 0); i++) parts.push({ type: 'tool_call', id: `call-${++seq}`, name: 'get_weather', arguments: args });
  };
  add(n.valid, '{"location":"Paris"}');
  add(n.invalidJson, '{"location": Par');
  add(n.mismatch, '{"location":42}');
  const span = client.tracer.startSpan('chat gpt-4o');
  span.setAttributes({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.tool.definitions': definitions,
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', finish_reason: 'tool_call', parts }]),
  });
  span.end();
  await client.flush();
}

export async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 8000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The text of every block of a Slack message, joined. */
export function slackText(b: Received['body']): string {
  return b.blocks
    .flatMap((x) => [x.text?.text ?? '', ...(x.fields ?? []).map((f) => f.text), ...(x.elements ?? []).map((e) => e.text)])
    .join('\n');
}
