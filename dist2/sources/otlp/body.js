import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
const gunzipAsync = promisify(gunzip);
/** A first second to start in: a connection's first packets may be small (TCP slow start, a proxy). */
const RATE_GRACE_MS = 1000;
export const NO_PACE = { timeoutMs: 0, minBytesPerSecond: 0 };
export async function readBody(req, limit, pace = NO_PACE) {
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
    if (Number.isFinite(declared) && declared > limit)
        return tooLarge(limit, 'as sent');
    const read = await collect(req, limit, pace);
    if (!read.ok)
        return read;
    const { chunks, size } = read;
    const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
    if (encoding !== 'gzip')
        return { ok: true, body: raw };
    try {
        return { ok: true, body: await gunzipAsync(raw, { maxOutputLength: limit }) };
    }
    catch (err) {
        if (err.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError)
            return tooLarge(limit, 'after decompression');
        return {
            ok: false,
            status: 400,
            reason: 'bad_gzip',
            message: `gzip body could not be decompressed: ${err.message}`,
        };
    }
}
/** The body's chunks; rejects when the request errors or is aborted (the client is gone). */
function collect(req, limit, pace) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        let size = 0;
        const started = performance.now();
        let timer;
        const finish = (outcome) => {
            if (timer)
                clearTimeout(timer);
            req.off('data', onData);
            req.off('end', onEnd);
            req.off('error', onError);
            req.off('close', onClose);
            // The rest of a refused body is not read: the answer closes the connection.
            if (!(outcome instanceof Error) && !outcome.ok)
                req.pause();
            if (outcome instanceof Error)
                reject(outcome);
            else
                resolve(outcome);
        };
        const onData = (chunk) => {
            size += chunk.length;
            if (size > limit)
                return finish(tooLarge(limit, 'as sent'));
            chunks.push(chunk);
        };
        const onEnd = () => finish({ ok: true, chunks, size });
        const onError = (err) => finish(err);
        const onClose = () => {
            if (!req.complete)
                finish(new Error('the client closed the connection before its body was in'));
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
            if (pace.timeoutMs > 0)
                next = pace.timeoutMs - elapsed;
            if (rate > 0)
                next = Math.min(next, Math.max(RATE_GRACE_MS, (size * 1000) / rate) - elapsed);
            if (Number.isFinite(next))
                timer = setTimeout(check, Math.max(10, Math.ceil(next)));
        };
        req.on('data', onData);
        req.on('end', onEnd);
        req.on('error', onError);
        req.on('close', onClose);
        check();
    });
}
function slow(message) {
    return { ok: false, status: 408, reason: 'body_timeout', message };
}
function tooLarge(limit, when) {
    return { ok: false, status: 413, reason: 'too_large', message: `request body exceeds ${limit} bytes ${when}` };
}
//# sourceMappingURL=body.js.map