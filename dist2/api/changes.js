import { CHANGE_KINDS } from '../changes/observe.js';
import { DEFAULT_ATTRIBUTION } from '../changes/config.js';
import { changesList, toolDetail } from '../queries/changes.js';
import { parseSince } from '../util/time-params.js';
import { badSince } from './bad-request.js';
/** GET /api/changes — change events, newest first; GET /api/tools/:service/:tool — a tool's definition versions and diffs. */
export async function changesRoutes(app, opts) {
    const attribution = opts.attribution ?? DEFAULT_ATTRIBUTION;
    app.get('/api/changes', {
        schema: {
            querystring: {
                type: 'object',
                additionalProperties: false,
                properties: {
                    service: { type: 'string', maxLength: 200 },
                    kind: { enum: [...CHANGE_KINDS] },
                    since: { type: 'string', maxLength: 64 },
                    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
                },
            },
        },
    }, async (req, reply) => {
        const q = req.query;
        let sinceMs;
        if (q.since !== undefined) {
            sinceMs = parseSince(q.since, opts.now());
            if (sinceMs === undefined)
                return badSince(reply);
        }
        return changesList(opts.read(req), {
            ...(q.service ? { service: q.service } : {}),
            ...(q.kind ? { kind: q.kind } : {}),
            ...(sinceMs !== undefined ? { sinceMs } : {}),
            limit: q.limit ?? 100,
        }, { ...attribution, nowMs: opts.now() });
    });
    app.get('/api/tools/:service/:tool', async (req, reply) => {
        const { service, tool } = req.params;
        const detail = await toolDetail(opts.read(req), service, tool);
        if (!detail)
            return reply.code(404).send({ error: 'Not Found', message: `no definition versions of ${tool} in ${service}` });
        return detail;
    });
}
//# sourceMappingURL=changes.js.map