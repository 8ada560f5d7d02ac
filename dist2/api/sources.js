import { sourcesSnapshot } from '../queries/sources.js';
export async function sourcesRoutes(app, opts) {
    app.get('/api/sources', (req) => sourcesSnapshot(opts.read(req)));
}
//# sourceMappingURL=sources.js.map