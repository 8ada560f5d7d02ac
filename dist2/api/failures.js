import { FAILURE_OUTCOMES } from '../model.js';
import { failuresPage } from '../queries/failures.js';
import { parseSince } from '../util/time-params.js';
import { badSince } from './bad-request.js';
/** GET /api/failures — recent failed calls with their (redacted) arguments and validation errors, newest first. */
export async function failuresRoutes(app, opts) {
    app.get('/api/failures', {
        schema: {
            querystring: {
                type: 'object',
                additionalProperties: false,
                properties: {
                    service: { type: 'string', maxLength: 200 },
                    tool: { type: 'string', maxLength: 1000 },
                    outcome: { enum: [...FAILURE_OUTCOMES] },
                    since: { type: 'string', maxLength: 64 },
                    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
                    cursor: { type: 'string', pattern: '^[0-9]{1,18}$' },
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
        return failuresPage(opts.read(req), {
            ...(q.service ? { service: q.service } : {}),
            ...(q.tool ? { tool: q.tool } : {}),
            ...(q.outcome ? { outcome: q.outcome } : {}),
            ...(sinceMs !== undefined ? { sinceMs } : {}),
            ...(q.cursor ? { cursor: Number(q.cursor) } : {}),
            limit: q.limit ?? 100,
        });
    });
}
//# sourceMappingURL=failures.js.map