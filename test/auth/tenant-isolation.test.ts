/**
 * What one team can do to another's data when it knows the other's trace and span ids (every service
 * an agent calls receives them in `traceparent`): two ingest tokens restricted to one service each,
 * and a read token restricted to one of them, through the real app (issue 17, findings 9, 3, 10).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { chatResourceSpans } from '../helpers/otlp-json.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';
import { bearer, tokenConfig, type TestToken } from './tokens.js';

const A = 'team-a-agent';
const B = 'team-b-agent';
const definitions = JSON.stringify([
  { type: 'function', name: 'lookup', parameters: { type: 'object', properties: { id: { type: 'string' } } } },
]);
let n = 0;
const ids = () => {
  n++;
  return { traceId: n.toString(16).padStart(32, 'c'), spanId: n.toString(16).padStart(16, 'd') };
};

/** A chat span of `service` proposing one call (broken JSON when `failing`), after a user's question. */
function chat(service: string, traceId: string, spanId: string, o: { endMs?: number; failing?: boolean } = {}) {
  const rs = chatResourceSpans({
    service,
    traceId,
    spanId,
    definitions,
    endMs: o.endMs ?? Date.now(),
    call: { id: `call-${service}-${spanId}`, name: 'lookup', arguments: o.failing ? '{"id": ' : '{"id":"1"}' },
  });
  const user = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `secret question of ${service}` }] }]);
  rs.scopeSpans[0]!.spans[0]!.attributes.push({ key: 'gen_ai.input.messages', value: { stringValue: user } });
  return rs;
}

const engines = [
  { engine: 'SQLite', skip: false },
  { engine: 'PostgreSQL', skip: pgServer().skip },
];

for (const { engine, skip } of engines)
  describe.skipIf(skip)(`tenant isolation under shared trace ids (${engine})`, () => {
    let dir: string;
    let tw: Harness;
    let t: Record<string, TestToken>;
    let pgUrl: string | undefined;

    const post = (token: TestToken, resourceSpans: unknown[]) =>
      tw.app.inject({
        method: 'POST',
        url: '/v1/traces',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        payload: JSON.stringify({ resourceSpans }),
      });
    const posted = async (token: TestToken, resourceSpans: unknown[]) => {
      const res = await post(token, resourceSpans);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.body).not.toContain('rejected');
    };

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-tenants-'));
      const made = tokenConfig(dir, {
        ingestA: { scopes: ['ingest'], services: [A] },
        ingestB: { scopes: ['ingest'], services: [B] },
        readA: { scopes: ['read'], services: [A] },
        readB: { scopes: ['read'], services: [B] },
        ops: { scopes: ['ingest', 'read', 'metrics', 'admin'] },
      });
      t = made.tokens;
      if (engine === 'PostgreSQL') pgUrl = await freshDatabase();
      tw = await startToolwatch({
        config: {
          auth: made.auth,
          judge: { enabled: true, model: 'judge-model', sample_rate: 1, idle: '1s' },
          ...(pgUrl ? { database_url: pgUrl } : {}),
        },
      });
    });
    afterAll(async () => {
      await tw?.close();
      if (pgUrl) await dropDatabase(pgUrl);
      rmSync(dir, { recursive: true, force: true });
    });

    it("finding 9: a span of team A under team B's trace and span ids, sent first, does not hide B's span", async () => {
      const { traceId, spanId } = ids();
      await posted(t.ingestA!, [chat(A, traceId, spanId)]);
      await posted(t.ingestB!, [chat(B, traceId, spanId, { failing: true })]);
      const text = await tw.metrics();
      expect(metricValue(text, 'toolwatch_tool_calls_total', { service: B, outcome: 'InvalidJson' })).toBe(1);
      expect(metricValue(text, 'toolwatch_tool_calls_total', { service: A })).toBe(1);
      expect(metricValue(text, 'toolwatch_duplicate_spans_total')).toBe(0);
      // B's resend is still a resend.
      await posted(t.ingestB!, [chat(B, traceId, spanId, { failing: true })]);
      expect(metricValue(await tw.metrics(), 'toolwatch_duplicate_spans_total')).toBe(1);
      const failures = await tw.app.inject({ url: '/api/failures', headers: bearer(t.readB!) });
      expect(JSON.parse(failures.body).items.map((f: { traceId: string }) => f.traceId)).toContain(traceId);
    });
    it("finding 3: a span of team A with an earlier start does not take over team B's trajectory", async () => {
      const { traceId, spanId } = ids();
      const now = Date.now();
      await posted(t.ingestB!, [chat(B, traceId, spanId, { endMs: now })]);
      // Team A joins B's trace (its id came in traceparent) with a span that starts a minute earlier.
      await posted(t.ingestA!, [chat(A, traceId, ids().spanId, { endMs: now - 60_000, failing: true })]);

      const asB = await tw.app.inject({ url: `/api/trajectories/${traceId}`, headers: bearer(t.readB!) });
      expect(asB.statusCode, asB.body).toBe(200);
      const trajectory = JSON.parse(asB.body);
      expect(trajectory.service).toBe(B);
      expect(asB.body).toContain(`secret question of ${B}`);
      expect(asB.body).not.toContain(`secret question of ${A}`);
      const asA = await tw.app.inject({ url: `/api/trajectories/${traceId}`, headers: bearer(t.readA!) });
      expect(asA.statusCode).toBe(404);

      // A's export has A's own failure in that trace, never B's trajectory.
      const exported = await tw.app.inject({
        url: `/api/export/cases?format=json&trace_id=${traceId}`,
        headers: bearer(t.readA!),
      });
      expect(exported.statusCode, exported.body).toBe(200);
      expect(exported.body).not.toContain(`secret question of ${B}`);
      // Nor can A label B's trajectory.
      const feedback = await tw.app.inject({
        method: 'POST',
        url: '/api/feedback',
        headers: bearer(t.ingestA!),
        payload: { trace_id: traceId, value: 'down', service: A },
      });
      expect(feedback.statusCode, feedback.body).toBe(403);
    });

    it('finding 3: an unrestricted sender still joins spans of every service into one trajectory', async () => {
      const { traceId, spanId } = ids();
      const now = Date.now();
      await posted(t.ops!, [chat(B, traceId, spanId, { endMs: now })]);
      await posted(t.ops!, [chat(A, traceId, ids().spanId, { endMs: now - 60_000 })]);
      const res = await tw.app.inject({ url: `/api/trajectories/${traceId}`, headers: bearer(t.readB!) });
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body).service).toBe(B); // its first service stays
      expect(res.body).toContain(`secret question of ${A}`);
    });
    it("finding 10: team A's span feedback on team B's trace is refused as POST /api/feedback refuses it", async () => {
      const theirs = ids();
      const ours = ids();
      await posted(t.ingestB!, [chat(B, theirs.traceId, theirs.spanId, { failing: true })]);
      const withFeedback = (traceId: string) => {
        const rs = chat(A, traceId, ids().spanId);
        rs.scopeSpans[0]!.spans[0]!.attributes.push({
          key: 'toolwatch.feedback',
          value: { stringValue: 'thumbs_down' },
        });
        return rs;
      };
      const before = metricValue(await tw.metrics(), 'toolwatch_feedback_ignored_total', { reason: 'forbidden' });
      await posted(t.ingestA!, [withFeedback(theirs.traceId), withFeedback(ours.traceId)]);
      const stored = await tw.services.store.sql.all<{ trace_id: string; service: string }>(
        'SELECT trace_id, service FROM feedback WHERE trace_id IN (?, ?)',
        [theirs.traceId, ours.traceId],
      );
      expect(stored).toEqual([{ trace_id: ours.traceId, service: A }]);
      const after = metricValue(await tw.metrics(), 'toolwatch_feedback_ignored_total', { reason: 'forbidden' });
      expect(after - before).toBe(1);
    });
  });
