import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/store.js';

export async function healthRoutes(app: FastifyInstance, opts: { store: Store; isDraining: () => boolean }): Promise<void> {
  // Liveness: the process answers. Never depends on the store, or a slow disk would get us killed.
  // Open: probes carry no token.
  app.get('/healthz', { config: { auth: 'open' } }, async () => ({ status: 'ok' }));

  // Readiness: take traffic only while the store answers and we are not draining.
  app.get('/readyz', { config: { auth: 'open' } }, async (_req, reply) => {
    if (opts.isDraining()) return reply.code(503).send({ status: 'draining' });
    try {
      await opts.store.ping();
      return { status: 'ready', store: opts.store.kind };
    } catch (err) {
      return reply.code(503).send({ status: 'unavailable', store: opts.store.kind, error: (err as Error).message });
    }
  });
}
