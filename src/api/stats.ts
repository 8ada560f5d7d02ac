/** GET /api/stats?window=1h — per service and tool: counts by outcome and the structural error rate. */
import type { FastifyInstance } from 'fastify';
import type { ReaderFor } from '../queries/reader.js';
import { toolStats } from '../queries/stats.js';
import { durationMs, durationSchema } from '../util/duration.js';

export async function statsRoutes(app: FastifyInstance, opts: { read: ReaderFor; now: () => number }): Promise<void> {
  app.get<{ Querystring: { window?: string; service?: string } }>(
    '/api/stats',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { window: { ...durationSchema, default: '1h' }, service: { type: 'string', maxLength: 200 } },
        },
      },
    },
    async (req) => {
      const { window, sinceMs, tools } = await toolStats(opts.read(req), { windowMs: durationMs(req.query.window ?? '1h'), nowMs: opts.now(), ...(req.query.service ? { service: req.query.service } : {}) });
      return { window, since: new Date(sinceMs).toISOString(), tools };
    },
  );
}
