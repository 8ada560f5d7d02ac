/**
 * The feedback span tap in two halves (src/feedback/service.ts): spans read one by one while their
 * batch is read, what was found recorded after the commit — the rows, metrics and refusals the spans
 * call for, for an unrestricted and a restricted sender.
 */
import { describe, expect, it } from 'vitest';
import { Feedback } from '../../src/feedback/service.js';
import type { SpanFeedback } from '../../src/feedback/spans.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import { storeRedactor } from '../../src/redact/stored.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { servicesView } from '../../src/util/service-view.js';
import { makeSpan } from '../helpers/spans.js';

const T = (c: string) => c.repeat(32);
const spans = [
  makeSpan(
    { 'toolwatch.feedback': 'thumbs_down', 'toolwatch.feedback.comment': 'no', 'toolwatch.feedback.source': 'w' },
    { traceId: T('a'), service: 'bot' },
  ),
  makeSpan({ 'http.route': '/chat' }, { traceId: T('b'), service: 'bot' }),
  makeSpan({ 'user.feedback': 0.5 }, { traceId: T('c'), service: 'bot' }),
  makeSpan({ 'toolwatch.feedback': 'maybe' }, { traceId: T('d'), service: 'bot' }),
  makeSpan({ 'user.feedback': 'up' }, { traceId: T('e'), service: 'other' }),
];

async function recorded(restricted: boolean) {
  const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
  const metrics = createMetrics();
  const fb = new Feedback({
    sql: store.sql,
    metrics,
    labels: new LabelCap(100),
    redactor: storeRedactor('secrets'),
    now: () => 1_000,
  });
  const writer = restricted ? servicesView(['bot']) : undefined;
  let found: SpanFeedback | undefined;
  for (const s of spans) found = fb.tap.read(s, found);
  await fb.tap.record(found, 'otlp', writer);
  const rows = await store.sql.all('SELECT * FROM feedback ORDER BY trace_id, source');
  const text = await metrics.registry.metrics();
  await store.close();
  return { rows, counted: text.split('\n').filter((l) => l.startsWith('toolwatch_feedback')) };
}

describe('the feedback span tap in two halves', () => {
  it.each([false, true])('records what the spans said (restricted sender: %s)', async (restricted) => {
    const got = await recorded(restricted);
    const row = (t: string, value: number, service: string, source = 'span', comment: string | null = null) => ({
      trace_id: T(t),
      source,
      service,
      value,
      comment,
      origin: 'span',
      time_ms: 1250,
      received_ms: 1000,
    });
    const rows = [row('a', -1, 'bot', 'w', 'no'), row('c', 0.5, 'bot')];
    const counted = [
      'toolwatch_feedback_total{service="bot",value="negative"} 1',
      'toolwatch_feedback_total{service="bot",value="positive"} 1',
    ];
    // A restricted sender's span may not post feedback on another service's trace.
    if (restricted) {
      expect(got.rows).toEqual(rows);
      expect(got.counted).toEqual([
        ...counted,
        'toolwatch_feedback_ignored_total{source="span",reason="bad_value"} 1',
        'toolwatch_feedback_ignored_total{source="span",reason="forbidden"} 1',
      ]);
    } else {
      expect(got.rows).toEqual([...rows, row('e', 1, 'other')]);
      expect(got.counted).toEqual([
        ...counted,
        'toolwatch_feedback_total{service="other",value="positive"} 1',
        'toolwatch_feedback_ignored_total{source="span",reason="bad_value"} 1',
      ]);
    }
  });

  it('a batch without feedback records nothing', async () => {
    const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    const fb = new Feedback({
      sql: store.sql,
      metrics: createMetrics(),
      labels: new LabelCap(100),
      redactor: storeRedactor('secrets'),
      now: () => 1_000,
    });
    let found: SpanFeedback | undefined;
    for (const s of [spans[1]!]) found = fb.tap.read(s, found);
    expect(found).toBeUndefined();
    expect(fb.tap.record(found, 'otlp')).toBeUndefined();
    await store.close();
  });
});
