/**
 * Token authentication for every route, decided once per route when it is registered (onRoute), so
 * a request pays for nothing but its own check: no lookup of what the route needs, no parsing beyond
 * the Authorization header.
 *
 * A route declares what it needs in its config — `config: { auth: 'ingest' }`, several scopes of
 * which any one will do (`['admin', 'ingest']`), or `'open'` for /healthz, /readyz and the CORS
 * preflight — and a route that declares nothing needs `read` for GET
 * and `admin` for anything else, so a new endpoint is guarded by default. 401 (with
 * `WWW-Authenticate: Bearer`) without a valid token, 403 without the scope. A route may answer those
 * in its own wire format (`config: { deny }`: OTLP answers a google.rpc.Status in the request's).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Metrics } from '../metrics/registry.js';
import { defaultScope, hasAnyScope, scopeBits, type RouteAuth, type Scope } from './scopes.js';
import { UNRESTRICTED, type Principal, type TokenSet } from './tokens.js';

/** Answers a refused request; `status` 401 or 403. */
export type DenyResponder = (
  req: FastifyRequest,
  reply: FastifyReply,
  status: 401 | 403,
  message: string,
) => FastifyReply;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route needs (default: `read` for GET/HEAD, `admin` otherwise). */
    auth?: RouteAuth;
    /** Answers 401/403 in the route's own format (default: JSON `{error, message}`). */
    deny?: DenyResponder;
  }
  interface FastifyRequest {
    /** Set by the auth hook before the handler runs; null on `open` routes. */
    principal: Principal | null;
  }
}

const jsonDeny: DenyResponder = (_req, reply, status, message) =>
  reply.code(status).send({ error: status === 401 ? 'Unauthorized' : 'Forbidden', message });

/**
 * Bearer for API clients; for GET also Basic, so a browser opening the page shows its login prompt
 * (the token as password) and sends the token on every later request to this origin.
 */
const CHALLENGE = 'Bearer realm="toolwatch"';
const BROWSER_CHALLENGE = [CHALLENGE, 'Basic realm="toolwatch", charset="UTF-8"'];

export interface AuthOptions {
  tokens: TokenSet;
  metrics: Pick<Metrics, 'authDenied'>;
}

/** Must be registered before the routes (it guards the routes registered after it). */
export function registerAuth(app: FastifyInstance, opts: AuthOptions): void {
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => {
    const declared = route.config?.auth;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const need: RouteAuth = declared ?? (methods.every((m) => defaultScope(m) === 'read') ? 'read' : 'admin');
    if (need === 'open') return;
    const hook = opts.tokens.enabled ? guard(opts, [need].flat(), route.config?.deny ?? jsonDeny) : anonymous;
    const existing = route.onRequest ? (Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]) : [];
    route.onRequest = [...existing, hook];
  });
}

const anonymous: onRequestHookHandler = (req, _reply, done) => {
  req.principal = UNRESTRICTED;
  done();
};

/** `need`: any one of these scopes lets a request through. */
function guard(opts: AuthOptions, need: readonly Scope[], deny: DenyResponder): onRequestHookHandler {
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
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal)
    throw new Error(`no principal on ${req.method} ${req.url}: the route is open and must not read data`);
  return req.principal;
}
