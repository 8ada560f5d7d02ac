/** GET /api/sources — each source's state (src/queries/sources.ts). */
import type { FastifyInstance } from 'fastify';
import type { ReaderFor } from './reader-for.js';
import { sourcesSnapshot } from '../queries/sources.js';

export async function sourcesRoutes(app: FastifyInstance, opts: { read: ReaderFor }): Promise<void> {
  app.get('/api/sources', (req) => sourcesSnapshot(opts.read(req)));
}
