import { efficiency } from '../queries/efficiency.js';
import { modelComparison } from '../queries/models.js';
import { toolStats } from '../queries/stats.js';
import { providerStats } from '../queries/changes.js';
import { durationMs, durationSchema, formatDuration } from '../util/duration.js';
export async function statsRoutes(app, opts) {
    app.get('/api/stats', {
        schema: {
            querystring: {
                type: 'object',
                additionalProperties: false,
                properties: {
                    window: { ...durationSchema, default: '1h' },
                    service: { type: 'string', maxLength: 200 },
                    by: { enum: ['tool', 'model', 'provider'], default: 'tool' },
                },
            },
        },
    }, async (req) => {
        const read = opts.read(req);
        const q = {
            windowMs: durationMs(req.query.window ?? '1h'),
            nowMs: opts.now(),
            ...(req.query.service ? { service: req.query.service } : {}),
        };
        if (req.query.by === 'provider') {
            // Whole minutes, the current one included, as for by=tool.
            const windowMs = Math.max(60_000, q.windowMs);
            const sinceMs = Math.floor(q.nowMs / 60_000) * 60_000 - windowMs + 60_000;
            const providers = await providerStats(read, { sinceMs, ...(q.service ? { service: q.service } : {}) });
            return { window: formatDuration(windowMs), since: new Date(sinceMs).toISOString(), by: 'provider', providers };
        }
        if (req.query.by === 'model') {
            const m = await modelComparison(read, q);
            return {
                window: formatDuration(m.window.untilMs - m.window.sinceMs),
                since: new Date(m.window.sinceMs).toISOString(),
                by: 'model',
                models: m.models,
                modelChanges: m.modelChanges.map((c) => ({
                    service: c.service,
                    model: c.model,
                    at: new Date(c.minute).toISOString(),
                    before: c.before,
                })),
            };
        }
        const [{ window, sinceMs, tools }, eff] = await Promise.all([toolStats(read, q), efficiency(read, q)]);
        return {
            window,
            since: new Date(sinceMs).toISOString(),
            tools,
            trajectories: {
                services: eff.services.map((s) => ({ service: s.service, ...s.stats })),
                models: eff.models.map((m) => ({ service: m.service, model: m.model, ...m.stats })),
            },
        };
    });
}
//# sourceMappingURL=stats.js.map