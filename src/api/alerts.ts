/** GET /api/alerts — the rules, every alert instance with its last value, notifiers (no secrets) and the outbox. */
import type { FastifyInstance } from 'fastify';
import type { Alerting } from '../alerts/setup.js';
import { alertsSnapshot } from '../queries/alerts.js';

export async function alertsRoutes(app: FastifyInstance, opts: { alerting: Alerting | undefined }): Promise<void> {
  app.get('/api/alerts', () => alertsSnapshot(opts.alerting));
}
