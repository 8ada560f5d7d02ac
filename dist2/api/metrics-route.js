export async function metricsRoutes(app, opts) {
    app.get('/metrics', { config: { auth: 'metrics' } }, async (_req, reply) => {
        reply.type(opts.registry.contentType);
        return opts.registry.metrics();
    });
}
//# sourceMappingURL=metrics-route.js.map