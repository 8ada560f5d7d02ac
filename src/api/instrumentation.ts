/** GET /api/instrumentation?service= — the instrumentation-coverage report of this process. */
import type { FastifyInstance } from 'fastify';
import { instrumentationReport, type CoverageSource } from '../queries/instrumentation.js';

export async function instrumentationRoutes(app: FastifyInstance, opts: { coverage: CoverageSource }): Promise<void> {
  app.get<{ Querystring: { service?: string } }>(
    '/api/instrumentation',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { service: { type: 'string', maxLength: 200 } },
        },
      },
    },
    async (req) => instrumentationReport(opts.coverage, req.query.service ? { service: req.query.service } : {}),
  );
}
