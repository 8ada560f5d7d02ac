/**
 * CORS for browser agents that export OTLP/JSON straight to toolwatch (server.cors_origins). The
 * preflight (OPTIONS /v1/traces) needs no token — browsers never send one on a preflight — and allows
 * POST with the headers an OTLP exporter sends (Content-Type, Content-Encoding, Authorization). Every
 * answer of POST /v1/traces, refusals included, names the allowed origin, so the agent can read the
 * status and back off on 429/503 (Retry-After is exposed).
 *
 * Tokens travel in the Authorization header, set by the agent's code; no cookie is ever used, so
 * `Access-Control-Allow-Credentials` is never sent and `*` stays a plain wildcard: a wildcard is never
 * combined with credentials.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers cross-origin requests from server.cors_origins. */
    cors?: boolean;
  }
}

const ALLOW_HEADERS = 'Content-Type, Content-Encoding, Authorization';
/** Browsers cap the preflight cache (Chromium at 2 h). */
const MAX_AGE_SECONDS = 7200;

export class CorsPolicy {
  private readonly any: boolean;
  private readonly origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.any = origins.includes('*');
    this.origins = new Set(origins.map((o) => o.toLowerCase()));
  }

  get enabled(): boolean {
    return this.any || this.origins.size > 0;
  }

  /** The Access-Control-Allow-Origin value for this Origin header; undefined when it is not allowed. */
  allowOrigin(origin: string | undefined): string | undefined {
    if (!origin) return undefined;
    if (this.any) return '*';
    return this.origins.has(origin.toLowerCase()) ? origin : undefined;
  }
}

/** Must be registered before the routes and before the auth hook (so refusals carry the headers too). */
export function registerCors(app: FastifyInstance, policy: CorsPolicy): void {
  if (!policy.enabled) return;
  const headers: onRequestHookHandler = (req, reply, done) => {
    reply.header('vary', 'Origin');
    const allowed = policy.allowOrigin(req.headers.origin);
    if (allowed) {
      reply.header('access-control-allow-origin', allowed);
      reply.header('access-control-expose-headers', 'Retry-After');
    }
    done();
  };
  app.addHook('onRoute', (route) => {
    if (!route.config?.cors || route.method === 'OPTIONS') return;
    const existing = route.onRequest ? (Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]) : [];
    route.onRequest = [headers, ...existing];
  });
}

/** OPTIONS on a CORS route: 204 with the allowed method and headers, or 403 naming what is not allowed. */
export function preflight(policy: CorsPolicy, method: string) {
  return (req: FastifyRequest, reply: FastifyReply) => {
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
