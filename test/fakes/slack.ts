/**
 * A local HTTP server that answers like Slack's incoming webhook (scripted: 200 "ok", 429 +
 * Retry-After, 500, slow, held, 404 no_service, 400 invalid_payload) and records what it was sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
  body: {
    text: string;
    blocks: { type: string; text?: { text: string }; fields?: { text: string }[]; elements?: { text: string }[] }[];
  } & Record<string, unknown>;
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
      const rec: Received = {
        at: Date.now(),
        path: req.url ?? '',
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'],
        answered: answer.hold ? 'held' : answer.status,
      };
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

/** The text of every block of a Slack message, joined. */
export function slackText(b: Received['body']): string {
  return b.blocks
    .flatMap((x) => [
      x.text?.text ?? '',
      ...(x.fields ?? []).map((f) => f.text),
      ...(x.elements ?? []).map((e) => e.text),
    ])
    .join('\n');
}
