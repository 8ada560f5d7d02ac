/**
 * GET / — the built-in page. Strict headers on every answer of this route: a CSP that allows only
 * this response's inline style and script (by nonce) and data: images, nosniff, no referrer, no caching.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { durationMs, durationSchema } from '../util/duration.js';
import type { ReaderFor } from '../api/reader-for.js';
import { loadPageData } from './data.js';
import { renderPage } from './page.js';

/** Longest window the page accepts (the store keeps store.retention_days anyway). */
const MAX_WINDOW_MS = 90 * 86_400_000;

export function contentSecurityPolicy(nonce: string): string {
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

export async function uiRoutes(app: FastifyInstance, opts: { read: ReaderFor }): Promise<void> {
  app.addHook('onRequest', async (req, reply) => {
    const nonce = randomBytes(16).toString('base64');
    (req as { cspNonce?: string }).cspNonce = nonce;
    reply.header('content-security-policy', contentSecurityPolicy(nonce));
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('cache-control', 'no-store');
  });

  app.get<{ Querystring: { window?: string; service?: string } }>(
    '/',
    {
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
    },
    async (req, reply) => {
      const window = req.query.window ?? '1h';
      const windowMs = durationMs(window);
      if (windowMs > MAX_WINDOW_MS)
        return reply.code(400).send({ error: 'Bad Request', message: 'querystring/window must be at most 90d' });
      const data = await loadPageData(opts.read(req), {
        window,
        windowMs,
        ...(req.query.service ? { service: req.query.service } : {}),
      });
      const nonce = (req as { cspNonce?: string }).cspNonce!;
      return reply.type('text/html; charset=utf-8').send(renderPage(data, nonce));
    },
  );
}
