/**
 * Scripts for the fake model servers (chat completions, Messages): what the "model" answers,
 * chosen per case — the case is recognised by the last user text of the request — and per request
 * of that case (repeats and conversation turns). Protocol-independent: each fake renders a reply
 * in its own wire format, errors included.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export type ScriptedCall = { name: string; arguments: unknown; id?: string };

export type Reply =
  /**
   * When streaming: `cut` drops the connection halfway through the arguments; `streamError` sends
   * the protocol's error event there instead (Anthropic's `event: error`).
   */
  | { calls: ScriptedCall[]; text?: string; cut?: boolean; streamError?: { type: string; message: string } }
  | { text: string }
  | { refusal: string }
  /** An HTTP error in the protocol's error format. */
  | { status: number; headers?: Record<string, string>; message?: string }
  /** Never answer (the client's timeout must fire). */
  | 'hang'
  /** A 200 answer with exactly this JSON body (a protocol's own shapes the other replies do not cover). */
  | { body: unknown };

export const call = (name: string, args: unknown, id?: string): Reply => ({
  calls: [{ name, arguments: args, ...(id ? { id } : {}) }],
});
export const text = (t: string): Reply => ({ text: t });

export interface ScriptRequest {
  /** Parsed request body. */
  body: Record<string, unknown>;
  /** The case: last user text in the conversation. */
  key: string;
  /** 1-based count of requests seen for this key (repeats, retries and turns all count). */
  nth: number;
  /** Assistant turns already in the conversation (0 = the first request of a conversation). */
  turn: number;
}

export type Script = (req: ScriptRequest) => Reply;

/**
 * Replies by case key (the prompt). A list is consumed one request at a time (the last entry
 * repeats); a function gets the request. Unknown keys answer 400 so a typo cannot pass quietly.
 */
export function perCase(map: Record<string, Reply | Reply[] | Script>): Script {
  return (req) => {
    const entry = map[req.key];
    if (entry === undefined) return { status: 400, message: `fake: no script for ${JSON.stringify(req.key)}` };
    if (typeof entry === 'function') return entry(req);
    if (Array.isArray(entry)) return entry[Math.min(req.nth, entry.length) - 1]!;
    return entry;
  };
}

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  raw: string;
  key: string;
  atMs: number;
}

export interface FakeServer {
  baseUrl: string;
  received: Received[];
  script: Script;
  close(): Promise<void>;
}

export interface Protocol {
  /** The route; a pattern when the path carries a parameter (Gemini's model). */
  path: string | RegExp;
  /** The last user text of a request body. */
  key(body: Record<string, unknown>): string;
  turn(body: Record<string, unknown>): number;
  /** Headers problem → an error reply before the script runs (auth, version). */
  check(headers: IncomingMessage['headers']): Reply | undefined;
  render(
    reply: Exclude<Reply, 'hang' | { body: unknown }>,
    body: Record<string, unknown>,
    n: number,
    res: ServerResponse,
  ): void;
}

/** A server on 127.0.0.1 and a free port speaking `protocol`, answering from `script`. */
export async function startScripted(
  protocol: Protocol,
  script: Script,
  basePath: string,
  /** Other routes of the same server (e.g. a models endpoint); true = answered. */
  other?: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<FakeServer> {
  const received: Received[] = [];
  const perKey = new Map<string, number>();
  let server: Server;
  const fake: FakeServer = {
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
      if (other?.(req, res)) return;
      const routed = typeof protocol.path === 'string' ? req.url === protocol.path : protocol.path.test(req.url ?? '');
      if (req.method !== 'POST' || !routed) {
        protocol.render({ status: 404, message: `no route ${req.method} ${req.url}` }, {}, 0, res);
        return;
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        protocol.render({ status: 400, message: 'body is not JSON' }, {}, 0, res);
        return;
      }
      const key = protocol.key(body);
      received.push({ path: req.url ?? '', headers: req.headers, body, raw, key, atMs: Date.now() });
      const refused = protocol.check(req.headers);
      if (refused && refused !== 'hang' && !('body' in refused)) {
        protocol.render(refused, body, received.length, res);
        return;
      }
      const nth = (perKey.get(key) ?? 0) + 1;
      perKey.set(key, nth);
      const reply = fake.script({ body, key, nth, turn: protocol.turn(body) });
      if (reply === 'hang') return;
      if ('body' in reply) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
        return;
      }
      protocol.render(reply, body, received.length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  fake.baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}${basePath}`;
  return fake;
}
