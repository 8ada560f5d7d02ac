import { checkLabel } from '../judge/verdict.js';
import { judgeSummary, trajectoryDetail } from '../queries/judge.js';
import { durationSchema } from '../util/duration.js';
const MAX_LABELS_PER_REQUEST = 10_000;
export async function judgeRoutes(app, opts) {
    const unavailable = { error: 'Service Unavailable', message: 'the judge is not available with this store' };
    app.post('/api/labels', { config: { auth: 'admin' } }, async (req, reply) => {
        const judge = opts.judge;
        if (!judge)
            return reply.code(503).send(unavailable);
        const items = Array.isArray(req.body) ? req.body : [req.body];
        if (items.length === 0 || items.length > MAX_LABELS_PER_REQUEST) {
            return reply.code(400).send({ error: 'Bad Request', message: `send 1 to ${MAX_LABELS_PER_REQUEST} labels` });
        }
        const labels = [];
        const problems = [];
        items.forEach((item, index) => {
            const c = checkLabel(item);
            if (c.ok)
                labels.push(c.value);
            else
                problems.push({ index, error: c.error });
        });
        // All or nothing: a half-imported file is harder to fix than a rejected one.
        if (problems.length)
            return reply
                .code(400)
                .send({ error: 'Bad Request', message: 'invalid labels', problems: problems.slice(0, 100) });
        const stored = await judge.store.labels.upsertLabels(labels, opts.now());
        const calibration = await judge.refreshKappa();
        return { stored, calibration };
    });
    app.get('/api/judge', {
        schema: {
            querystring: {
                type: 'object',
                additionalProperties: false,
                properties: {
                    window: { ...durationSchema, default: '7d' },
                    service: { type: 'string', maxLength: 200 },
                    runs: { type: 'integer', minimum: 1, maximum: 500, default: 20 },
                },
            },
        },
    }, async (req, reply) => {
        const judge = opts.judge;
        if (!judge)
            return reply.code(503).send(unavailable);
        return judgeSummary({ ...opts.read(req), judge }, {
            window: req.query.window ?? '7d',
            nowMs: opts.now(),
            runs: req.query.runs ?? 20,
            ...(req.query.service ? { service: req.query.service } : {}),
        });
    });
    app.get('/api/trajectories/:traceId', {
        schema: {
            params: {
                type: 'object',
                properties: { traceId: { type: 'string', pattern: '^[0-9a-fA-F]{32}$' } },
                required: ['traceId'],
            },
        },
    }, async (req, reply) => {
        const judge = opts.judge;
        if (!judge)
            return reply.code(503).send(unavailable);
        const t = await trajectoryDetail({ ...opts.read(req), judge }, req.params.traceId.toLowerCase());
        if (!t)
            return reply.code(404).send({
                error: 'Not Found',
                message: 'no stored trajectory for this trace (not sampled, not complete yet and dropped, or pruned)',
            });
        return t;
    });
}
//# sourceMappingURL=judge.js.map