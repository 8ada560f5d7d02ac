import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

export async function metricsRoutes(app: FastifyInstance, opts: { registry: Registry }): Promise<void> {
  app.get('/metrics', { config: { auth: 'metrics' } }, async (_req, reply) => {
    reply.type(opts.registry.contentType);
    return opts.registry.metrics();
  });
}
