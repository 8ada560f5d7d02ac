import { hasAnyScope, scopeBits } from '../auth/scopes.js';
import { WriteHealth } from '../store/write-health.js';
// Operators: the store's error text is for those who may read data or metrics, not for an ingest
// token carried by a browser, and not for anyone who can reach an open probe endpoint.
const SEES_ERRORS = scopeBits(['read', 'metrics', 'admin']);
export async function healthRoutes(app, opts) {
    const writes = opts.writeHealth ?? new WriteHealth();
    const seesErrors = (req) => {
        const tokens = opts.tokens;
        if (!tokens)
            return false;
        // Without tokens only this machine reaches the port (or a proxy that authenticates): it may read it.
        if (!tokens.enabled)
            return true;
        const a = tokens.authenticate(req.headers.authorization);
        return a.ok && hasAnyScope(a.principal.scopes, SEES_ERRORS);
    };
    // Liveness: the process answers. Never depends on the store, or a slow disk would get us killed.
    // Open: probes carry no token.
    app.get('/healthz', { config: { auth: 'open' } }, async () => ({ status: 'ok' }));
    // Readiness: take traffic only while the store answers, takes writes, and we are not draining.
    app.get('/readyz', { config: { auth: 'open' } }, async (req, reply) => {
        if (opts.isDraining())
            return reply.code(503).send({ status: 'draining' });
        const reason = writes.failing ? 'writes_failing' : 'store_unreachable';
        try {
            await writes.check(opts.store);
            return { status: 'ready', store: opts.store.kind };
        }
        catch (err) {
            const error = err.message;
            req.log.warn({ reason, error }, 'readiness: not ready');
            return reply
                .code(503)
                .send({ status: 'unavailable', store: opts.store.kind, reason, ...(seesErrors(req) ? { error } : {}) });
        }
    });
}
//# sourceMappingURL=health.js.map