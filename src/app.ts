/**
 * buildApp: every route and the error handler on a Fastify instance. It never listens — main.ts
 * does, and tests use app.inject or listen on port 0.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { failuresRoutes } from './api/failures.js';
import { healthRoutes } from './api/health.js';
import { judgeRoutes } from './api/judge.js';
import { metricsRoutes } from './api/metrics-route.js';
import { statsRoutes } from './api/stats.js';
import { sourcesRoutes } from './api/sources.js';
import { alertsRoutes } from './api/alerts.js';
import { exportRoutes } from './api/export.js';
import { feedbackRoutes } from './api/feedback.js';
import { otlpRoutes } from './sources/otlp/route.js';
import { uiRoutes } from './ui/routes.js';
import type { Services } from './services.js';

export async function buildApp(services: Services): Promise<FastifyInstance> {
  const { config, store, metrics, pipeline, now } = services;
  const app = Fastify({
    loggerInstance: services.log as FastifyBaseLogger,
    // JSON API bodies only; OTLP reads its own body under its own limit.
    bodyLimit: 1024 * 1024,
    // An agent fleet sends many batches a second: per-request info logs would drown the useful ones.
    logController: new LogController({ disableRequestLogging: true }),
    // Closing keeps in-flight requests: a batch being recorded still gets its answer.
    forceCloseConnections: false,
    // A misspelt query parameter is an error, not silently dropped.
    ajv: { customOptions: { removeAdditional: false } },
  });
  const isDraining = () => services.draining;

  app.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) req.log.error({ err }, 'request failed');
    return reply.code(status).send({ error: status === 500 ? 'Internal Server Error' : err.name, message: status === 500 ? 'internal error' : err.message });
  });

  await app.register(otlpRoutes, {
    pipeline,
    store,
    metrics,
    maxBodyBytes: config.ingest.maxBodyBytes,
    maxPendingBatches: config.ingest.maxPendingBatches,
    retryAfterSeconds: config.ingest.retryAfterSeconds,
    maxAttributeDepth: config.ingest.maxAttributeDepth,
    isDraining,
  });
  await app.register(healthRoutes, { store, isDraining });
  await app.register(metricsRoutes, { registry: metrics.registry });
  await app.register(failuresRoutes, { store, now });
  await app.register(statsRoutes, { store, now });
  const langfuse = services.langfuse;
  await app.register(sourcesRoutes, { metrics, ...(langfuse ? { langfuse: () => langfuse.info() } : {}) });
  await app.register(judgeRoutes, { judge: services.judge, now });
  await app.register(alertsRoutes, { alerting: services.alerting });
  await app.register(feedbackRoutes, { feedback: services.feedback, now });
  const exportStores = { sql: store.sql, judge: services.judge.store, feedback: services.feedback.store, redact: config.judge.redact };
  await app.register(exportRoutes, { stores: exportStores, now });
  await app.register(uiRoutes, { store, now, alerting: services.alerting, judge: services.judge });
  return app;
}
