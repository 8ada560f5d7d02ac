import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/store.js';
import { WriteHealth } from '../store/write-health.js';

export interface HealthOptions {
  store: Store;
  isDraining: () => boolean;
  /** Failed batch writes make readiness check with a real write (write-health.ts). */
  writeHealth?: WriteHealth;
}

export async function healthRoutes(app: FastifyInstance, opts: HealthOptions): Promise<void> {
  const writes = opts.writeHealth ?? new WriteHealth();
  // Liveness: the process answers. Never depends on the store, or a slow disk would get us killed.
  // Open: probes carry no token.
  app.get('/healthz', { config: { auth: 'open' } }, async () => ({ status: 'ok' }));

  // Readiness: take traffic only while the store answers, takes writes, and we are not draining.
  app.get('/readyz', { config: { auth: 'open' } }, async (_req, reply) => {
    if (opts.isDraining()) return reply.code(503).send({ status: 'draining' });
    try {
      await writes.check(opts.store);
      return { status: 'ready', store: opts.store.kind };
    } catch (err) {
      return reply.code(503).send({ status: 'unavailable', store: opts.store.kind, error: (err as Error).message });
    }
  });
}
