/**
 * Reads a request body under a size limit that applies twice: to the bytes as sent and to the
 * bytes after gunzip. A gzip bomb stops at the limit instead of filling memory. And under a pace: a
 * body must be in within its deadline and arrive at a minimum average rate (after its first
 * second), so a client sending a byte a second holds its connection for a second, not for ever.
 */
import type { IncomingMessage } from 'node:http';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';

const gunzipAsync = promisify(gunzip);

/** A first second to start in: a connection's first packets may be small (TCP slow start, a proxy). */
const RATE_GRACE_MS = 1000;

export interface BodyPace {
  /** The whole body within this (0 = no deadline). */
  timeoutMs: number;
  /** At least this many bytes per second on average, once RATE_GRACE_MS have passed (0 = any rate). */
  minBytesPerSecond: number;
}

export const NO_PACE: BodyPace = { timeoutMs: 0, minBytesPerSecond: 0 };

/**
 * A body that is in, handed out once: the decoder takes the bytes and nothing else keeps a
 * reference, so they die young. A batch then waits for its group commit — under load across
 * young-generation collections — and a buffer still referenced from its async frames would be
 * promoted with them: its 100+ KiB outside the heap would stay until the next major GC.
 */
export class BodyBytes {
  constructor(private bytes: Buffer | undefined) {}

  take(): Buffer {
    const bytes = this.bytes;
    if (!bytes) throw new Error('the request body was taken already');
    this.bytes = undefined;
    return bytes;
  }
}

export type BodyResult =
  | { ok: true; body: BodyBytes }
  | {
      ok: false;
      status: 413 | 415 | 400 | 408;
      reason: 'too_large' | 'unsupported_encoding' | 'bad_gzip' | 'body_timeout';
      message: string;
    };

export async function readBody(req: IncomingMessage, limit: number, pace: BodyPace = NO_PACE): Promise<BodyResult> {
  const encoding = String(req.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== '') {
    return {
      ok: false,
      status: 415,
      reason: 'unsupported_encoding',
      message: `Content-Encoding ${encoding} is not supported (use gzip or none)`,
    };
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return tooLarge(limit, 'as sent');

  const read = await collect(req, limit, pace);
  if (!read.ok) return read;
  const { chunks, size } = read;
  const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  if (encoding !== 'gzip') return { ok: true, body: new BodyBytes(raw) };
  try {
    return { ok: true, body: new BodyBytes(await gunzipAsync(raw, { maxOutputLength: limit })) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError)
      return tooLarge(limit, 'after decompression');
    return {
      ok: false,
      status: 400,
      reason: 'bad_gzip',
      message: `gzip body could not be decompressed: ${(err as Error).message}`,
    };
  }
}

type Collected = { ok: true; chunks: Buffer[]; size: number } | Extract<BodyResult, { ok: false }>;

/** The body's chunks; rejects when the request errors or is aborted (the client is gone). */
function collect(req: IncomingMessage, limit: number, pace: BodyPace): Promise<Collected> {
  return new Promise<Collected>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const finish = (outcome: Collected | Error) => {
      if (timer) clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      // The rest of a refused body is not read: the answer closes the connection.
      if (!(outcome instanceof Error) && !outcome.ok) req.pause();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return finish(tooLarge(limit, 'as sent') as Collected);
      chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, chunks, size });
    const onError = (err: Error) => finish(err);
    const onClose = () => {
      if (!req.complete) finish(new Error('the client closed the connection before its body was in'));
    };
    // One timer per body, set for the moment the pace could next be missed (not a tick per second).
    const check = () => {
      const elapsed = performance.now() - started;
      if (pace.timeoutMs > 0 && elapsed >= pace.timeoutMs)
        return finish(slow(`the body was not in within ${pace.timeoutMs} ms (ingest.body_timeout)`));
      const rate = pace.minBytesPerSecond;
      if (rate > 0 && elapsed >= RATE_GRACE_MS && (size * 1000) / elapsed < rate)
        return finish(slow(`the body arrived slower than ${rate} bytes per second (ingest.min_body_rate)`));
      let next = Number.POSITIVE_INFINITY;
      if (pace.timeoutMs > 0) next = pace.timeoutMs - elapsed;
      if (rate > 0) next = Math.min(next, Math.max(RATE_GRACE_MS, (size * 1000) / rate) - elapsed);
      if (Number.isFinite(next)) timer = setTimeout(check, Math.max(10, Math.ceil(next)));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
    check();
  });
}

function slow(message: string): Collected {
  return { ok: false, status: 408, reason: 'body_timeout', message };
}

function tooLarge(limit: number, when: string): BodyResult {
  return { ok: false, status: 413, reason: 'too_large', message: `request body exceeds ${limit} bytes ${when}` };
}
