import type { FastifyInstance } from 'fastify';
import { CHANGE_KINDS, type ChangeKind } from '../changes/observe.js';
import { DEFAULT_ATTRIBUTION, type AttributionConfig } from '../changes/config.js';
import { changesList, toolDetail } from '../queries/changes.js';
import { parseSince } from '../util/time-params.js';
import { badSince } from './bad-request.js';
import type { ReaderFor } from './reader-for.js';

interface Query {
  service?: string;
  kind?: ChangeKind;
  since?: string;
  limit?: number;
}

/** GET /api/changes — change events, newest first; GET /api/tools/:service/:tool — a tool's definition versions and diffs. */
export async function changesRoutes(
  app: FastifyInstance,
  opts: { read: ReaderFor; now: () => number; attribution?: AttributionConfig },
): Promise<void> {
  const attribution = opts.attribution ?? DEFAULT_ATTRIBUTION;
  app.get<{ Querystring: Query }>(
    '/api/changes',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            service: { type: 'string', maxLength: 200 },
            kind: { enum: [...CHANGE_KINDS] },
            since: { type: 'string', maxLength: 64 },
            limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
          },
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      let sinceMs: number | undefined;
      if (q.since !== undefined) {
        sinceMs = parseSince(q.since, opts.now());
        if (sinceMs === undefined) return badSince(reply);
      }
      return changesList(
        opts.read(req),
        {
          ...(q.service ? { service: q.service } : {}),
          ...(q.kind ? { kind: q.kind } : {}),
          ...(sinceMs !== undefined ? { sinceMs } : {}),
          limit: q.limit ?? 100,
        },
        { ...attribution, nowMs: opts.now() },
      );
    },
  );

  app.get<{ Params: { service: string; tool: string } }>('/api/tools/:service/:tool', async (req, reply) => {
    const { service, tool } = req.params;
    const detail = await toolDetail(opts.read(req), service, tool);
    if (!detail)
      return reply.code(404).send({ error: 'Not Found', message: `no definition versions of ${tool} in ${service}` });
    return detail;
  });
}
