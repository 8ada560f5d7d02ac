/**
 * User feedback on the real app: POST /api/feedback (one or many, all or nothing), span attributes
 * sent by the real OTel exporter, the stored rows, toolwatch_feedback_total, and the
 * negative_feedback_rate rule firing and resolving through the real evaluator.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseFeedbackValue } from '../../src/feedback/value.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient } from '../helpers/otel.js';

let tw: Harness | undefined;
afterEach(async () => {
  await tw?.close();
  tw = undefined;
});

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const C = 'c'.repeat(32);

async function post(body: unknown) {
  const res = await tw!.app.inject({ method: 'POST', url: '/api/feedback', payload: body as object });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

async function rows() {
  return tw!.services.store.sql.all<Record<string, unknown>>(
    'SELECT trace_id, source, service, value, comment, origin FROM feedback ORDER BY trace_id, source',
  );
}

const fb = async (labels: Record<string, string>) =>
  metricValue(await tw!.metrics(), 'toolwatch_feedback_total', labels);

describe('feedback values', () => {
  it.each([
    [-1, -1],
    [0.5, 0.5],
    [0, 0],
    [true, 1],
    [false, -1],
    ['up', 1],
    ['DOWN', -1],
    ['thumbs_down', -1],
    ['positive', 1],
    ['neutral', 0],
    ['👎', -1],
    ['👍🏽', 1],
    [1.5, undefined],
    ['meh', undefined],
    [null, undefined],
    [Number.NaN, undefined],
  ])('%j → %j', (v, want) => expect(parseFeedbackValue(v)).toBe(want));
});

describe('POST /api/feedback', () => {
  it('stores one item or many, per trace and source, and counts new or changed values once', async () => {
    tw = await startToolwatch({ listen: false });
    expect(await post({ trace_id: A.toUpperCase(), value: 'down', comment: 'wrong order', service: 'shop' })).toEqual({
      status: 200,
      body: { stored: 1, counted: 1 },
    });
    expect(
      await post([
        { trace_id: B, value: 1 },
        { trace_id: A, value: -1, source: 'escalation', service: 'shop' },
        { trace_id: C, value: 0.25, source: 'rating' },
        { trace_id: C, value: -0.5, source: 'rating' }, // the later of two in one request wins
      ]),
    ).toEqual({ status: 200, body: { stored: 3, counted: 3 } });
    expect(await rows()).toEqual([
      { trace_id: A, source: 'api', service: 'shop', value: -1, comment: 'wrong order', origin: 'api' },
      { trace_id: A, source: 'escalation', service: 'shop', value: -1, comment: null, origin: 'api' },
      { trace_id: B, source: 'api', service: 'unknown', value: 1, comment: null, origin: 'api' },
      { trace_id: C, source: 'rating', service: 'unknown', value: -0.5, comment: null, origin: 'api' },
    ]);
    expect(await fb({ service: 'shop', value: 'negative' })).toBe(2);
    expect(await fb({ service: 'unknown', value: 'positive' })).toBe(1);
    expect(await fb({ service: 'unknown', value: 'negative' })).toBe(1);
    // A resend changes nothing and counts nothing; a changed mind is counted under its new value.
    expect((await post({ trace_id: B, value: 'up' })).body).toEqual({ stored: 1, counted: 0 });
    expect((await post({ trace_id: B, value: 'neutral' })).body).toEqual({ stored: 1, counted: 1 });
    expect(await fb({ service: 'unknown', value: 'neutral' })).toBe(1);
    expect(await fb({ service: 'unknown', value: 'positive' })).toBe(1);
  });

  it('is all or nothing, listing every invalid item', async () => {
    tw = await startToolwatch({ listen: false });
    const res = await post([
      { trace_id: A, value: 'down' },
      { trace_id: B, value: 3 },
      { value: 1 },
      { trace_id: C, value: 'up', rating: 5 },
      { trace_id: 'has space', value: 1 },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('4 invalid feedback item(s); nothing stored');
    expect(res.body.problems).toEqual([
      { index: 1, error: expect.stringMatching(/^value: must be a number from -1 to 1/) },
      { index: 2, error: "(item) must have required property 'trace_id'" },
      { index: 3, error: 'unknown key "rating"' },
      { index: 4, error: expect.stringMatching(/^trace_id must match pattern/) },
    ]);
    expect(await rows()).toEqual([]);
    expect((await post([])).status).toBe(400);
    expect(await fb({})).toBe(0);
  });

  it('takes the service toolwatch already knows for the trace when the sender names none', async () => {
    tw = await startToolwatch({ listen: false });
    const trace = 'd'.repeat(32);
    await tw.services.store.write({
      callAggregates: [],
      executionAggregates: [],
      failureDrops: [],
      pendingAdd: [],
      pendingRemove: [],
      extensions: [],
      failures: [
        {
          timeMs: Date.now(),
          source: 'otlp',
          service: 'billing',
          model: 'm',
          tool: 't',
          name: 't',
          outcome: 'InvalidJson',
          traceId: trace,
          spanId: '1'.repeat(16),
          errors: [],
          message: 'x',
        },
      ],
    });
    await post({ trace_id: trace, value: -1 });
    expect(await fb({ service: 'billing', value: 'negative' })).toBe(1);
  });
});

describe('feedback in spans', () => {
  it('reads toolwatch.feedback / user.feedback on any span of a trace (real OTel exporter), once', async () => {
    tw = await startToolwatch();
    const client = otelClient(tw.url, { service: 'support-bot', batchSize: 10 });
    const thumbs = client.tracer.startSpan('feedback');
    thumbs.setAttributes({
      'toolwatch.feedback': 'thumbs_down',
      'toolwatch.feedback.comment': 'did not cancel',
      'toolwatch.feedback.source': 'widget',
    });
    thumbs.end();
    const rating = client.tracer.startSpan('http.request');
    rating.setAttributes({ 'user.feedback': 0.5, 'http.route': '/chat' });
    rating.end();
    const broken = client.tracer.startSpan('feedback');
    broken.setAttribute('toolwatch.feedback', 'maybe');
    broken.end();
    client.tracer.startSpan('plain').end();
    await client.flush();
    await client.shutdown();
    const ids = [thumbs, rating].map((s) => s.spanContext().traceId);
    expect(await rows()).toEqual(
      [
        {
          trace_id: ids[0]!,
          source: 'widget',
          service: 'support-bot',
          value: -1,
          comment: 'did not cancel',
          origin: 'span',
        },
        { trace_id: ids[1]!, source: 'span', service: 'support-bot', value: 0.5, comment: null, origin: 'span' },
      ].sort((a, b) => (a.trace_id < b.trace_id ? -1 : 1)),
    );
    const text = await tw.metrics();
    expect(metricValue(text, 'toolwatch_feedback_total', { service: 'support-bot', value: 'negative' })).toBe(1);
    expect(metricValue(text, 'toolwatch_feedback_total', { service: 'support-bot', value: 'positive' })).toBe(1);
    expect(metricValue(text, 'toolwatch_feedback_ignored_total', { source: 'span', reason: 'bad_value' })).toBe(1);
  });
});

describe('negative_feedback_rate', () => {
  it('fires per service above the threshold with min_feedback, and resolves when the window moves on (real evaluator)', async () => {
    tw = await startToolwatch({
      listen: false,
      config: {
        alerts: {
          rules: [
            { name: 'unhappy-users', kind: 'negative_feedback_rate', window: '30m', threshold: 0.25, min_feedback: 4 },
          ],
        },
      },
    });
    const items = [
      ...['1', '2', '3', '4'].map((d, i) => ({
        trace_id: d.repeat(32),
        value: i < 2 ? 'down' : 'up',
        service: 'shop',
      })), // 50 %
      ...['5', '6', '7', '8', '9'].map((d, i) => ({
        trace_id: d.repeat(32),
        value: i < 1 ? -1 : 1,
        service: 'search',
      })), // 20 %
      { trace_id: 'e'.repeat(32), value: -1, service: 'tiny' }, // 100 %, but 1 < min_feedback
      { trace_id: '1'.repeat(32), value: -0.5, source: 'escalation', service: 'shop' }, // same trace: still one trace
    ];
    expect((await post(items)).status).toBe(200);
    const now = Date.now();
    const first = await tw.services.alerting.evaluate(now);
    expect(first!.sent).toEqual([
      { rule: 'unhappy-users', labels: { service: 'shop' }, status: 'firing', repeat: false },
    ]);
    const states = await tw.services.alerting.store.states();
    const shop = states.find((s) => s.labels.service === 'shop')!;
    expect(shop).toMatchObject({ state: 'firing', value: 0.5, threshold: 0.25 });
    expect(shop.summary).toBe('negative feedback on 50% of traces > 25% (2 of 4 with feedback, 30m)');
    expect(states.find((s) => s.labels.service === 'tiny')?.state ?? 'inactive').toBe('inactive');
    const later = await tw.services.alerting.evaluate(now + 45 * 60_000);
    expect(later!.sent).toEqual([
      { rule: 'unhappy-users', labels: { service: 'shop' }, status: 'resolved', repeat: false },
    ]);
  });
});
