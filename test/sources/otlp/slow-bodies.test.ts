/**
 * Issue 17, finding 2: slow bodies must not starve other tenants. Real sockets: connections that
 * send their headers and then a byte now and then hold no slot of the shared in-flight limit (a
 * batch counts only once its body is in), one token holds at most its share of the slots, and a
 * slow body is cut off (408, the connection closed) after its deadline.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bearer, tokenConfig, type TestToken } from '../../auth/tokens.js';
import { metricValue, startToolwatch, type Harness } from '../../helpers/harness.js';

const BATCH = JSON.stringify({ resourceSpans: [] });

let tw: Harness | undefined;
let dir: string | undefined;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await tw?.close();
  tw = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function start(ingest: Record<string, unknown>, server: Record<string, unknown> = {}) {
  dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-slow-'));
  const t = tokenConfig(dir, { noisy: { scopes: ['ingest'] }, quiet: { scopes: ['ingest'] } });
  tw = await startToolwatch({ config: { auth: t.auth, ingest, server } });
  return t.tokens;
}

interface Slow {
  socket: net.Socket;
  /** Everything the server sent back. */
  answer: () => string;
  closed: Promise<void>;
}

/** A batch whose headers are sent at once and whose body trickles a byte every `everyMs`. */
function slowBatch(url: string, token: TestToken, everyMs: number): Promise<Slow> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    sockets.push(socket);
    let answer = '';
    socket.on('data', (b) => (answer += b.toString('latin1')));
    socket.on('error', () => {});
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => {
      socket.write(
        'POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
          `Authorization: Bearer ${token.value}\r\nContent-Length: 100000\r\n\r\n{`,
      );
      const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write(' ')), everyMs);
      socket.once('close', () => clearInterval(drip));
      resolve({ socket, answer: () => answer, closed });
    });
    socket.once('error', reject);
  });
}

const post = (h: Harness, token: TestToken) =>
  fetch(`${h.url}/v1/traces`, {
    method: 'POST',
    body: BATCH,
    headers: { 'content-type': 'application/json', ...bearer(token) },
  });

/** Waits until the server holds `n` connections. */
async function untilOpen(h: Harness, n: number) {
  for (let i = 0; i < 400; i++) {
    const count = await new Promise<number>((r) => h.app.server.getConnections((_e, c) => r(c)));
    if (count >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`fewer than ${n} connections open`);
}

describe('slow bodies', () => {
  it("many slow bodies of one token do not make another token's batch 503", async () => {
    // No pace here: the slow connections stay open for the whole test, as long as an attacker wants.
    const tokens = await start({
      max_inflight_requests: 8,
      max_inflight_share: 0.5,
      body_timeout: '0s',
      min_body_rate: 0,
    });
    const slow = await Promise.all(Array.from({ length: 20 }, () => slowBatch(tw!.url, tokens.noisy!, 200)));
    await untilOpen(tw!, 20);
    // The noisy token holds its share (4 of 8) and is refused past it; the rest of the slots stay free.
    for (let i = 0; i < 3; i++) {
      const res = await post(tw!, tokens.quiet!);
      expect(res.status).toBe(200);
    }
    const refused = slow.filter((s) => s.answer().startsWith('HTTP/1.1 503'));
    expect(refused.length).toBeGreaterThanOrEqual(16);
    const m = await tw!.metrics();
    expect(metricValue(m, 'toolwatch_ingest_shed_total', { reason: 'token_share' })).toBeGreaterThanOrEqual(16);
    expect(metricValue(m, 'toolwatch_ingest_shed_total', { reason: 'inflight' })).toBe(0);
  });

  it.each([
    ['the body deadline', { body_timeout: '1500ms', min_body_rate: 0 }, 100, /ingest\.body_timeout/],
    ['the minimum rate', { body_timeout: '0s', min_body_rate: 100 }, 300, /ingest\.min_body_rate/],
  ])('a slow body is cut off after %s: 408 and the connection closed', async (_name, ingest, everyMs, why) => {
    const tokens = await start(ingest);
    const slow = await slowBatch(tw!.url, tokens.noisy!, everyMs);
    await slow.closed;
    expect(slow.answer()).toMatch(/^HTTP\/1\.1 408/);
    expect(slow.answer()).toMatch(why);
    expect(metricValue(await tw!.metrics(), 'toolwatch_ingest_rejected_total', { reason: 'body_timeout' })).toBe(1);
    // And the token's slot is free again.
    expect((await post(tw!, tokens.noisy!)).status).toBe(200);
  });

  it('a connection that never sends a byte is closed after server.connection_timeout', async () => {
    await start({}, { connection_timeout: '500ms' });
    const { port } = new URL(tw!.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => {});
    await new Promise<void>((r) => socket.once('close', () => r()));
  });

  it('a request whose headers never end is closed after server.headers_timeout', async () => {
    await start({}, { headers_timeout: '500ms', request_timeout: '1s' });
    const { port } = new URL(tw!.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => {});
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => socket.write('POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
    const drip = setInterval(() => socket.destroyed || socket.write('X-Slow: 1\r\n'), 100);
    await closed;
    clearInterval(drip);
  });
});
