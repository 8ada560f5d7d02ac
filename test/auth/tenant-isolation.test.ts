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

describe('tenant isolation under shared trace ids', () => {
  let dir: string;
  let tw: Harness;
  let t: Record<string, TestToken>;

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
    tw = await startToolwatch({
      config: { auth: made.auth, judge: { enabled: true, model: 'judge-model', sample_rate: 1, idle: '1s' } },
    });
  });
  afterAll(async () => {
    await tw?.close();
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
});
