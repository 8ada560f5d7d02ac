import { principalOf } from '../auth/hook.js';
import { labelBudget } from '../metrics/label-cap.js';
import { preflight } from '../sources/otlp/cors.js';
import { checkFeedback } from '../feedback/check.js';
const MAX_ITEMS = 10_000;
export async function feedbackRoutes(app, opts) {
    if (opts.cors.enabled)
        app.options('/api/feedback', { config: { auth: 'open' } }, preflight(opts.cors, 'POST'));
    const config = { auth: ['admin', 'ingest'], cors: true };
    app.post('/api/feedback', { bodyLimit: 8 * 1024 * 1024, config }, async (req, reply) => {
        const items = Array.isArray(req.body) ? req.body : [req.body];
        if (items.length === 0 || items.length > MAX_ITEMS) {
            return reply.code(400).send({ error: 'Bad Request', message: `send 1 to ${MAX_ITEMS} feedback items` });
        }
        const now = opts.now();
        const ok = [];
        const problems = [];
        items.forEach((item, index) => {
            const c = checkFeedback(item, now);
            if (c.ok)
                ok.push(c.value);
            else
                problems.push({ index, error: c.error });
        });
        // All or nothing: a half-stored batch is harder to fix than a rejected one.
        if (problems.length)
            return reply.code(400).send({
                error: 'Bad Request',
                message: `${problems.length} invalid feedback item(s); nothing stored`,
                problems: problems.slice(0, 100),
            });
        const forbidden = await opts.feedback.forbidden(ok, principalOf(req).view);
        if (forbidden.length)
            return reply.code(403).send({
                error: 'Forbidden',
                message: `${forbidden.length} feedback item(s) for services this token may not write; nothing stored`,
                problems: forbidden.slice(0, 100),
            });
        const res = await opts.feedback.record(ok, undefined, labelBudget(principalOf(req).view.globs));
        return { stored: res.stored, counted: res.counted.length };
    });
}
//# sourceMappingURL=feedback.js.map