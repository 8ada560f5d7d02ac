import { defaultScope, hasAnyScope, scopeBits } from './scopes.js';
import { UNRESTRICTED } from './tokens.js';
const jsonDeny = (_req, reply, status, message) => reply.code(status).send({ error: status === 401 ? 'Unauthorized' : 'Forbidden', message });
/**
 * Bearer for API clients; for GET also Basic, so a browser opening the page shows its login prompt
 * (the token as password) and sends the token on every later request to this origin.
 */
const CHALLENGE = 'Bearer realm="toolwatch"';
const BROWSER_CHALLENGE = [CHALLENGE, 'Basic realm="toolwatch", charset="UTF-8"'];
/** Must be registered before the routes (it guards the routes registered after it). */
export function registerAuth(app, opts) {
    app.decorateRequest('principal', null);
    app.addHook('onRoute', (route) => {
        const declared = route.config?.auth;
        const methods = Array.isArray(route.method) ? route.method : [route.method];
        const need = declared ?? (methods.every((m) => defaultScope(m) === 'read') ? 'read' : 'admin');
        if (need === 'open')
            return;
        const hook = opts.tokens.enabled ? guard(opts, [need].flat(), route.config?.deny ?? jsonDeny) : anonymous;
        const existing = route.onRequest ? (Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]) : [];
        route.onRequest = [...existing, hook];
    });
}
const anonymous = (req, _reply, done) => {
    req.principal = UNRESTRICTED;
    done();
};
/** `need`: any one of these scopes lets a request through. */
function guard(opts, need, deny) {
    // Built once per route: the metric's label (`admin,ingest` for a route that takes either) and the 403 text.
    const scope = need.join(',');
    const lacks = `${need.join(' or ')} scope`;
    const anyOf = scopeBits(need);
    return (req, reply, done) => {
        const a = opts.tokens.authenticate(req.headers.authorization);
        if (!a.ok) {
            opts.metrics.authDenied.inc({ scope, reason: a.reason });
            reply.header('www-authenticate', req.method === 'GET' || req.method === 'HEAD' ? BROWSER_CHALLENGE : CHALLENGE);
            const message = a.reason === 'missing_token' ? 'send Authorization: Bearer <token>' : 'the token is not valid';
            deny(req, reply, 401, message);
            return;
        }
        if (!hasAnyScope(a.principal.scopes, anyOf)) {
            opts.metrics.authDenied.inc({ scope, reason: 'missing_scope' });
            deny(req, reply, 403, `token ${a.principal.name} lacks the ${lacks}`);
            return;
        }
        req.principal = a.principal;
        done();
    };
}
/** The request's principal; throws (a 500, never an open door) on a route the hook did not guard. */
export function principalOf(req) {
    if (!req.principal)
        throw new Error(`no principal on ${req.method} ${req.url}: the route is open and must not read data`);
    return req.principal;
}
//# sourceMappingURL=hook.js.map