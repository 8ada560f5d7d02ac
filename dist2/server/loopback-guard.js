import { isLoopback } from '../auth/config.js';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The host of a Host header without its port: `[::1]:4318` → `::1`, `localhost:4318` → `localhost`. */
export function hostOf(header) {
    const h = header.trim();
    if (h.startsWith('[')) {
        const end = h.indexOf(']');
        return end < 0 ? h : h.slice(1, end);
    }
    const colon = h.indexOf(':');
    // More than one colon without brackets is no valid Host: kept whole, so it is no loopback name.
    if (colon < 0 || h.indexOf(':', colon + 1) >= 0)
        return h;
    return h.slice(0, colon);
}
/** Whether a Host header names this machine (a trailing dot — `localhost.` — is the same name). */
export function isLoopbackHost(header) {
    if (!header)
        return false;
    const host = hostOf(header).replace(/\.$/, '');
    return host !== '' && isLoopback(host);
}
/** Whether an Origin header is a page served from this machine (`http://localhost:3000`). */
export function isLoopbackOrigin(origin) {
    let url;
    try {
        url = new URL(origin);
    }
    catch {
        return false; // `null` (sandboxed frames, file: pages) and garbage are foreign.
    }
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.host);
}
/** Must be registered before the routes; every request, unknown paths included, passes through it. */
export function registerLoopbackGuard(app, opts) {
    app.addHook('onRequest', (req, reply, done) => {
        const host = req.headers.host;
        if (!isLoopbackHost(host)) {
            reply.header('connection', 'close');
            reply.code(403).send({
                error: 'Forbidden',
                message: `Host ${JSON.stringify(host ?? '')} is not a loopback name: without auth.tokens toolwatch answers only ` +
                    'requests addressed to localhost, 127.x.x.x or [::1] (see docs/operations.md, Security)',
            });
            return;
        }
        const origin = req.headers.origin;
        if (origin !== undefined &&
            !SAFE_METHODS.has(req.method) &&
            !isLoopbackOrigin(origin) &&
            !opts.allowsOrigin(origin)) {
            reply.code(403).send({
                error: 'Forbidden',
                message: `origin ${origin} may not write here: without auth.tokens only loopback pages and server.cors_origins may`,
            });
            return;
        }
        done();
    });
}
//# sourceMappingURL=loopback-guard.js.map