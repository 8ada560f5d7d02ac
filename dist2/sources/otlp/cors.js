const ALLOW_HEADERS = 'Content-Type, Content-Encoding, Authorization';
/** Browsers cap the preflight cache (Chromium at 2 h). */
const MAX_AGE_SECONDS = 7200;
export class CorsPolicy {
    any;
    origins;
    constructor(origins) {
        this.any = origins.includes('*');
        this.origins = new Set(origins.map((o) => o.toLowerCase()));
    }
    get enabled() {
        return this.any || this.origins.size > 0;
    }
    /** The Access-Control-Allow-Origin value for this Origin header; undefined when it is not allowed. */
    allowOrigin(origin) {
        if (!origin)
            return undefined;
        if (this.any)
            return '*';
        return this.origins.has(origin.toLowerCase()) ? origin : undefined;
    }
}
/** Must be registered before the routes and before the auth hook (so refusals carry the headers too). */
export function registerCors(app, policy) {
    if (!policy.enabled)
        return;
    const headers = (req, reply, done) => {
        reply.header('vary', 'Origin');
        const allowed = policy.allowOrigin(req.headers.origin);
        if (allowed) {
            reply.header('access-control-allow-origin', allowed);
            reply.header('access-control-expose-headers', 'Retry-After');
        }
        done();
    };
    app.addHook('onRoute', (route) => {
        if (!route.config?.cors || route.method === 'OPTIONS')
            return;
        const existing = route.onRequest ? (Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]) : [];
        route.onRequest = [headers, ...existing];
    });
}
/** OPTIONS on a CORS route: 204 with the allowed method and headers, or 403 naming what is not allowed. */
export function preflight(policy, method) {
    return (req, reply) => {
        reply.header('vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
        const allowed = policy.allowOrigin(req.headers.origin);
        if (!allowed)
            return reply.code(403).send({
                error: 'Forbidden',
                message: `origin ${req.headers.origin ?? '(none)'} is not in server.cors_origins`,
            });
        const asked = String(req.headers['access-control-request-method'] ?? '').toUpperCase();
        if (asked !== method)
            return reply.code(403).send({ error: 'Forbidden', message: `only ${method} is allowed here` });
        return reply
            .code(204)
            .header('access-control-allow-origin', allowed)
            .header('access-control-allow-methods', method)
            .header('access-control-allow-headers', ALLOW_HEADERS)
            .header('access-control-max-age', String(MAX_AGE_SECONDS))
            .send();
    };
}
//# sourceMappingURL=cors.js.map