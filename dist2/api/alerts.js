import { alertsSnapshot } from '../queries/alerts.js';
export async function alertsRoutes(app, opts) {
    app.get('/api/alerts', (req) => alertsSnapshot(opts.read(req)));
}
//# sourceMappingURL=alerts.js.map