/**
 * POST /api/feedback — user feedback per trace: one item or an array (≤ 10,000), all or nothing,
 * every invalid item listed (as POST /api/labels). Items: {trace_id, value, comment?, source?, service?}.
 */
import type { FastifyInstance } from 'fastify';
import { checkFeedback } from '../feedback/check.js';
import type { Feedback } from '../feedback/service.js';
import type { FeedbackItem } from '../feedback/value.js';

const MAX_ITEMS = 10_000;

export async function feedbackRoutes(
  app: FastifyInstance,
  opts: { feedback: Feedback; now: () => number },
): Promise<void> {
  app.post('/api/feedback', { bodyLimit: 8 * 1024 * 1024 }, async (req, reply) => {
    const items = Array.isArray(req.body) ? (req.body as unknown[]) : [req.body];
    if (items.length === 0 || items.length > MAX_ITEMS) {
      return reply.code(400).send({ error: 'Bad Request', message: `send 1 to ${MAX_ITEMS} feedback items` });
    }
    const now = opts.now();
    const ok: FeedbackItem[] = [];
    const problems: { index: number; error: string }[] = [];
    items.forEach((item, index) => {
      const c = checkFeedback(item, now);
      if (c.ok) ok.push(c.value);
      else problems.push({ index, error: c.error });
    });
    // All or nothing: a half-stored batch is harder to fix than a rejected one.
    if (problems.length)
      return reply
        .code(400)
        .send({
          error: 'Bad Request',
          message: `${problems.length} invalid feedback item(s); nothing stored`,
          problems: problems.slice(0, 100),
        });
    const res = await opts.feedback.record(ok);
    return { stored: res.stored, counted: res.counted.length };
  });
}
