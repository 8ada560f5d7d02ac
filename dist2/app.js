/**
 * buildApp: every route and the error handler on a Fastify instance. It never listens — main.ts
 * does, and tests use app.inject or listen on port 0. CORS and token authentication are registered
 * before any route, so every route is guarded (src/auth/hook.ts); the read routes get a Reader per
 * request (src/queries/reader.ts), never the store.
 */
import Fastify, { LogController } from 'fastify';
import { registerAuth } from './auth/hook.js';
import { readerFor } from './api/reader-for.js';
import { registerLoopbackGuard } from './server/loopback-guard.js';
import { closeIdleConnections } from './server/idle-connections.js';
import { CorsPolicy, registerCors } from './sources/otlp/cors.js';
import { failuresRoutes } from './api/failures.js';
import { problemsRoutes } from './api/problems.js';
import { healthRoutes } from './api/health.js';
import { judgeRoutes } from './api/judge.js';
import { metricsRoutes } from './api/metrics-route.js';
import { statsRoutes } from './api/stats.js';
import { sourcesRoutes } from './api/sources.js';
import { alertsRoutes } from './api/alerts.js';
import { instrumentationRoutes } from './api/instrumentation.js';
import { exportRoutes } from './api/export.js';
import { feedbackRoutes } from './api/feedback.js';
import { changesRoutes } from './api/changes.js';
import { LoadShedder } from './sources/otlp/load-shedder.js';
import { otlpRoutes } from './sources/otlp/route.js';
import { uiRoutes } from './ui/routes.js';
export async function buildApp(services, opts = {}) {
    const { config, store, metrics, pipeline, now } = services;
    // Deadlines for slow clients (Fastify's default is none): the headers, then headers and body; Node
    // checks them every connectionsCheckingInterval, so that is kept well below the shortest deadline.
    const timeouts = {
        headersTimeout: config.server.headersTimeoutMs,
        requestTimeout: config.server.requestTimeoutMs,
        connectionsCheckingInterval: Math.max(100, Math.min(1000, config.server.headersTimeoutMs / 4)),
    };
    const app = Fastify({
        ...(opts.https ? { https: { ...opts.https, ...timeouts } } : { http: timeouts }),
        requestTimeout: config.server.requestTimeoutMs,
        loggerInstance: services.log,
        // JSON API bodies only; OTLP reads its own body under its own limit.
        bodyLimit: 1024 * 1024,
        // An agent fleet sends many batches a second: per-request info logs would drown the useful ones.
        logController: new LogController({ disableRequestLogging: true }),
        // Closing keeps in-flight requests (a batch being recorded still gets its answer) but closes
        // kept-alive connections as soon as they are idle, so they cannot hold the shutdown.
        forceCloseConnections: 'idle',
        // While closing, batches get the OTLP route's own 503 (Retry-After, the request's format).
        return503OnClosing: false,
        // A misspelt query parameter is an error, not silently dropped.
        ajv: { customOptions: { removeAdditional: false } },
    });
    // A connection that never sends a byte holds a descriptor, not a slot: closed once idle this long.
    closeIdleConnections(app, config.server.connectionTimeoutMs);
    const isDraining = () => services.draining;
    // A connection answered while draining is closed after the answer, so no kept-alive connection
    // outlives the requests it had in flight (closing waits for connections, not only requests).
    app.addHook('onSend', async (_req, reply) => {
        if (isDraining())
            reply.header('connection', 'close');
        // No answer is to be sniffed into something else (a JSON error echoing a span's text read as HTML).
        reply.header('x-content-type-options', 'nosniff');
    });
    app.setErrorHandler((err, req, reply) => {
        const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
        if (status === 500)
            req.log.error({ err }, 'request failed');
        return reply.code(status).send({
            error: status === 500 ? 'Internal Server Error' : err.name,
            message: status === 500 ? 'internal error' : err.message,
        });
    });
    const cors = new CorsPolicy(config.server.corsOrigins);
    // The no-token mode is safe only if a page rebound to 127.0.0.1 cannot use it (loopback-guard.ts).
    if (!services.tokens.enabled && !config.auth.allowUnauthenticated)
        registerLoopbackGuard(app, { allowsOrigin: (o) => cors.allowOrigin(o) !== undefined });
    registerCors(app, cors);
    registerAuth(app, { tokens: services.tokens, metrics });
    const langfuse = services.langfuse;
    const read = readerFor({
        store,
        now,
        metrics,
        alerting: services.alerting,
        judge: services.judge,
        feedback: services.feedback.store,
        coverage: services.coverage,
        ...(langfuse ? { langfuse: () => langfuse.info() } : {}),
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
        cors,
        now,
        shedder: new LoadShedder({
            maxInflight: config.ingest.maxInflightRequests,
            maxLoopDelayMs: config.ingest.maxEventLoopDelayMs,
            tokenShare: config.ingest.maxInflightShare,
            maxConcurrent: config.ingest.maxConcurrentBatches,
            maxQueueDelayMs: config.ingest.maxQueueDelayMs,
        }),
        bodyPace: { timeoutMs: config.ingest.bodyTimeoutMs, minBytesPerSecond: config.ingest.minBodyBytesPerSecond },
    });
    await app.register(healthRoutes, { store, isDraining, writeHealth: services.writeHealth, tokens: services.tokens });
    await app.register(metricsRoutes, { registry: metrics.registry });
    await app.register(failuresRoutes, { read, now });
    await app.register(problemsRoutes, {
        read,
        now,
        attribution: config.changes.attribution,
        prices: config.problems.prices,
    });
    await app.register(statsRoutes, { read, now });
    await app.register(sourcesRoutes, { read });
    await app.register(instrumentationRoutes, { read });
    await app.register(judgeRoutes, { judge: services.judge, now, read });
    await app.register(alertsRoutes, { read });
    await app.register(feedbackRoutes, { feedback: services.feedback, now, cors });
    await app.register(exportRoutes, { read, now });
    await app.register(changesRoutes, { read, now, attribution: config.changes.attribution });
    await app.register(uiRoutes, { read, attribution: config.changes.attribution });
    return app;
}
//# sourceMappingURL=app.js.map