/** An HTTP answer (or failure) from a webhook → sent, retry later, or give up. */
import { classifyStatus } from '../../delivery/http-status.js';
import { BlockedAddressError, postJson } from './http-post.js';
import { redactUrl } from './url-guard.js';
function classifyResponse(res, nowMs) {
    const v = classifyStatus(res.status, { headers: res.headers, nowMs });
    if (v.kind === 'ok')
        return { kind: 'ok' };
    const error = v.kind === 'permanent' && v.redirect
        ? `${res.status} redirect not followed`
        : `${res.status} ${oneLine(res.body)}`.trim();
    if (v.kind === 'retry')
        return {
            kind: 'retry',
            error,
            rateLimited: v.rateLimited,
            ...(v.retryAfterMs !== undefined ? { retryAfterMs: v.retryAfterMs } : {}),
        };
    // 400 invalid_payload, 403 invalid_token, 404 no_service, 410 channel_is_archived…: retrying cannot help.
    return { kind: 'permanent', error };
}
/** POSTs a JSON body and classifies whatever comes back, answer or failure. */
export async function sendJson(url, body, opts, nowMs) {
    try {
        return classifyResponse(await postJson(url, JSON.stringify(body), opts), nowMs());
    }
    catch (err) {
        return classifyError(err);
    }
}
function classifyError(err) {
    if (err instanceof BlockedAddressError)
        return { kind: 'permanent', error: err.message };
    const e = err;
    // Node's messages name host and port at most, never the path; keep it to the code and a short text.
    return { kind: 'retry', error: oneLine(`${e.code ?? e.name ?? 'Error'}: ${e.message ?? String(err)}`) };
}
/** One short line; any URL in it (a receiver echoing its own address) cut to scheme and host. */
function oneLine(s) {
    return s
        .replace(/https?:\/\/[^\s"'<>]+/gi, (u) => redactUrl(u))
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, 300);
}
//# sourceMappingURL=http-result.js.map