/**
 * GET / — the built-in page; GET /problems/:id — a problem's view; GET /tools/:service/:tool — a
 * tool's view. Strict headers on every answer of this route: a CSP that allows only
 * this response's inline style and script (by nonce) and data: images, nosniff, no referrer, no caching.
 */
import { randomBytes } from 'node:crypto';
import { durationMs, durationSchema } from '../util/duration.js';
import { DEFAULT_ATTRIBUTION } from '../changes/config.js';
import { loadPageData } from './data.js';
import { renderPage } from './page.js';
import { renderProblemPage } from './problem-page.js';
import { loadProblemPage, loadToolPage } from './subpage-data.js';
import { renderToolPage } from './tool-page.js';
/** Longest window the page accepts (the store keeps store.retention_days anyway). */
const MAX_WINDOW_MS = 90 * 86_400_000;
export function contentSecurityPolicy(nonce) {
    return [
        "default-src 'none'",
        `style-src 'nonce-${nonce}'`,
        `script-src 'nonce-${nonce}'`,
        'img-src data:',
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ].join('; ');
}
export async function uiRoutes(app, opts) {
    // The same attribution settings as GET /api/problems/:id and /api/changes, so the page names the same cause.
    const attribution = opts.attribution ?? DEFAULT_ATTRIBUTION;
    app.addHook('onRequest', async (req, reply) => {
        const nonce = randomBytes(16).toString('base64');
        req.cspNonce = nonce;
        reply.header('content-security-policy', contentSecurityPolicy(nonce));
        reply.header('x-content-type-options', 'nosniff');
        reply.header('referrer-policy', 'no-referrer');
        reply.header('cache-control', 'no-store');
    });
    const windowOf = (w) => {
        const window = w ?? '1h';
        const windowMs = durationMs(window);
        return windowMs > MAX_WINDOW_MS ? undefined : { window, windowMs };
    };
    const tooLong = { error: 'Bad Request', message: 'querystring/window must be at most 90d' };
    const notFound = (message) => ({ error: 'Not Found', message });
    const query = {
        type: 'object',
        additionalProperties: false,
        properties: {
            window: { ...durationSchema, default: '1h' },
            service: { type: 'string', maxLength: 200 },
        },
    };
    app.get('/problems/:id', {
        schema: {
            params: {
                type: 'object',
                properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
                required: ['id'],
            },
            querystring: query,
        },
    }, async (req, reply) => {
        const w = windowOf(req.query.window);
        if (!w)
            return reply.code(400).send(tooLong);
        const data = await loadProblemPage(opts.read(req), {
            id: req.params.id,
            window: w.window,
            ...(req.query.service ? { service: req.query.service } : {}),
            attribution,
        });
        if (data === 'none')
            return reply.code(404).send(notFound('no such problem'));
        if (data === 'ambiguous')
            return reply
                .code(400)
                .send({ error: 'Bad Request', message: 'this id exists in several services: name one with service' });
        const nonce = req.cspNonce;
        return reply.type('text/html; charset=utf-8').send(renderProblemPage(data, nonce));
    });
    app.get('/tools/:service/:tool', {
        schema: {
            params: {
                type: 'object',
                properties: { service: { type: 'string', maxLength: 200 }, tool: { type: 'string', maxLength: 1000 } },
                required: ['service', 'tool'],
            },
            querystring: { ...query, properties: { window: query.properties.window } },
        },
    }, async (req, reply) => {
        const w = windowOf(req.query.window);
        if (!w)
            return reply.code(400).send(tooLong);
        const data = await loadToolPage(opts.read(req), { ...req.params, ...w, attribution });
        if (!data)
            return reply
                .code(404)
                .send(notFound(`no calls, problems or definitions of ${req.params.tool} in ${req.params.service}`));
        const nonce = req.cspNonce;
        return reply.type('text/html; charset=utf-8').send(renderToolPage(data, nonce));
    });
    app.get('/', {
        schema: {
            querystring: {
                type: 'object',
                additionalProperties: false,
                properties: {
                    window: { ...durationSchema, default: '1h' },
                    service: { type: 'string', maxLength: 200 },
                },
            },
        },
    }, async (req, reply) => {
        const window = req.query.window ?? '1h';
        const windowMs = durationMs(window);
        if (windowMs > MAX_WINDOW_MS)
            return reply.code(400).send({ error: 'Bad Request', message: 'querystring/window must be at most 90d' });
        const data = await loadPageData(opts.read(req), {
            window,
            windowMs,
            ...(req.query.service ? { service: req.query.service } : {}),
            attribution,
        });
        const nonce = req.cspNonce;
        return reply.type('text/html; charset=utf-8').send(renderPage(data, nonce));
    });
}
//# sourceMappingURL=routes.js.map