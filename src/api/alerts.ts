/** GET /api/alerts — the rules, every alert instance with its last value, notifiers (no secrets) and the outbox. */
import type { FastifyInstance } from 'fastify';
import { alertsSnapshot } from '../queries/alerts.js';
import type { ReaderFor } from './reader-for.js';

export async function alertsRoutes(app: FastifyInstance, opts: { read: ReaderFor }): Promise<void> {
  app.get('/api/alerts', (req) => alertsSnapshot(opts.read(req)));
}
