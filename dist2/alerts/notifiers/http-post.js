/**
 * One JSON POST to a webhook, on node:http(s) rather than fetch because:
 * - the address check must run on the address actually connected to (a custom `lookup`), not on a
 *   separate DNS answer a rebinding name could change in between;
 * - redirects are never followed (node:http does not follow any).
 * The whole exchange (connect, send, response body) has one deadline.
 */
import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isPrivateAddress } from './url-guard.js';
export class BlockedAddressError extends Error {
    constructor() {
        super('the webhook host resolves to a loopback, link-local or private address');
        this.name = 'BlockedAddressError';
    }
}
function guardedLookup(hostname, options, cb) {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err)
            return cb(err, options.all ? [] : '', 0);
        if (addresses.some((a) => isPrivateAddress(a.address)))
            return cb(new BlockedAddressError(), options.all ? [] : '', 0);
        if (options.all)
            return cb(null, addresses);
        const first = addresses[0];
        cb(null, first.address, first.family);
    });
}
export function postJson(rawUrl, payload, opts) {
    const url = new URL(rawUrl);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!opts.allowPrivateAddresses && isIP(host) && isPrivateAddress(host))
        return Promise.reject(new BlockedAddressError());
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
        let done = false;
        const finish = (err, res) => {
            if (done)
                return;
            done = true;
            clearTimeout(timer);
            opts.signal?.removeEventListener('abort', onAbort);
            if (err)
                reject(err);
            else
                resolve(res);
        };
        const req = mod.request(url, {
            method: 'POST',
            headers: {
                'content-type': 'application/json',
                'content-length': Buffer.byteLength(payload),
                'user-agent': 'toolwatch',
                ...opts.headers,
            },
            ...(opts.allowPrivateAddresses ? {} : { lookup: guardedLookup }),
            agent: false,
        }, (res) => {
            const chunks = [];
            let size = 0;
            res.on('data', (c) => {
                if (size < 4096)
                    chunks.push(c);
                size += c.length;
            });
            res.on('end', () => finish(null, {
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks).toString('utf8').slice(0, 4096),
            }));
            res.on('error', (e) => finish(e));
        });
        const timer = setTimeout(() => {
            const e = new Error(`no answer within ${opts.timeoutMs} ms`);
            e.name = 'TimeoutError';
            req.destroy(e);
            finish(e);
        }, opts.timeoutMs);
        const onAbort = () => {
            const e = new Error('aborted (shutting down)');
            e.name = 'AbortError';
            req.destroy(e);
            finish(e);
        };
        if (opts.signal?.aborted)
            return onAbort();
        opts.signal?.addEventListener('abort', onAbort, { once: true });
        req.on('error', (e) => finish(e));
        req.end(payload);
    });
}
//# sourceMappingURL=http-post.js.map