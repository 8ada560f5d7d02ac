/** GET /api/instrumentation?service= — the instrumentation-coverage report of this process. */
import type { FastifyInstance } from 'fastify';
import { instrumentationReport } from '../queries/instrumentation.js';
import type { ReaderFor } from './reader-for.js';

export async function instrumentationRoutes(app: FastifyInstance, opts: { read: ReaderFor }): Promise<void> {
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
    async (req) => instrumentationReport(opts.read(req), req.query.service ? { service: req.query.service } : {}),
  );
}
