/**
 * Reads a request body under a size limit that applies twice: to the bytes as sent and to the
 * bytes after gunzip. A gzip bomb stops at the limit instead of filling memory.
 */
import type { IncomingMessage } from 'node:http';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';

const gunzipAsync = promisify(gunzip);

export type BodyResult =
  | { ok: true; body: Buffer }
  | { ok: false; status: 413 | 415 | 400; reason: 'too_large' | 'unsupported_encoding' | 'bad_gzip'; message: string };

export async function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
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

  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return tooLarge(limit, 'as sent');
    chunks.push(chunk);
  }
  const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  if (encoding !== 'gzip') return { ok: true, body: raw };
  try {
    return { ok: true, body: await gunzipAsync(raw, { maxOutputLength: limit }) };
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

function tooLarge(limit: number, when: string): BodyResult {
  return { ok: false, status: 413, reason: 'too_large', message: `request body exceeds ${limit} bytes ${when}` };
}
