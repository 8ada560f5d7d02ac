import { instrumentationReport } from '../queries/instrumentation.js';
export async function instrumentationRoutes(app, opts) {
    app.get('/api/instrumentation', {
        schema: {
            querystring: {
                type: 'object',
                additionalProperties: false,
                properties: { service: { type: 'string', maxLength: 200 } },
            },
        },
    }, async (req) => instrumentationReport(opts.read(req), req.query.service ? { service: req.query.service } : {}));
}
//# sourceMappingURL=instrumentation.js.map