/** An HTTP answer (or failure) from a webhook → sent, retry later, or give up. */
import { BlockedAddressError, postJson, retryAfterMs, type PostOptions, type PostResult } from './http-post.js';
import type { SendResult } from './registry.js';
import { redactUrl } from './url-guard.js';

function classifyResponse(res: PostResult, nowMs: number): SendResult {
  const body = oneLine(res.body);
  if (res.status >= 200 && res.status < 300) return { ok: true };
  if (res.status === 429) {
    const after = retryAfterMs(res.headers['retry-after'], nowMs);
    return { ok: false, retry: true, ...(after !== undefined ? { retryAfterMs: after } : {}), error: `429 ${body}`.trim() };
  }
  if (res.status >= 500 || res.status === 408) {
    const after = retryAfterMs(res.headers['retry-after'], nowMs);
    return { ok: false, retry: true, ...(after !== undefined ? { retryAfterMs: after } : {}), error: `${res.status} ${body}`.trim() };
  }
  if (res.status >= 300 && res.status < 400) return { ok: false, retry: false, error: `${res.status} redirect not followed` };
  // 400 invalid_payload, 403 invalid_token, 404 no_service, 410 channel_is_archived…: retrying cannot help.
  return { ok: false, retry: false, error: `${res.status} ${body}`.trim() };
}

/** POSTs a JSON body and classifies whatever comes back, answer or failure. */
export async function sendJson(url: string, body: unknown, opts: PostOptions, nowMs: () => number): Promise<SendResult> {
  try {
    return classifyResponse(await postJson(url, JSON.stringify(body), opts), nowMs());
  } catch (err) {
    return classifyError(err);
  }
}

function classifyError(err: unknown): SendResult {
  if (err instanceof BlockedAddressError) return { ok: false, retry: false, error: err.message };
  const e = err as NodeJS.ErrnoException;
  // Node's messages name host and port at most, never the path; keep it to the code and a short text.
  return { ok: false, retry: true, error: oneLine(`${e.code ?? e.name ?? 'Error'}: ${e.message ?? String(err)}`) };
}

/** One short line; any URL in it (a receiver echoing its own address) cut to scheme and host. */
function oneLine(s: string): string {
  return s
    .replace(/https?:\/\/[^\s"'<>]+/gi, (u) => redactUrl(u))
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}
