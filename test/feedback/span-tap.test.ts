/**
 * The feedback span tap in two halves (src/feedback/service.ts): spans read one by one while their
 * batch is read, what was found recorded after the commit — the same rows, metrics and refusals as
 * the tap reading the whole batch after the commit, for an unrestricted and a restricted sender.
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

async function recorded(how: 'take' | 'halves', restricted: boolean) {
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
  if (how === 'take') await fb.tap.take(spans, 'otlp', writer);
  else {
    let found: SpanFeedback | undefined;
    for (const s of spans) found = fb.tap.read(s, found);
    await fb.tap.record(found, 'otlp', writer);
  }
  const rows = await store.sql.all('SELECT * FROM feedback ORDER BY trace_id, source');
  const text = await metrics.registry.metrics();
  await store.close();
  return { rows, counted: text.split('\n').filter((l) => l.startsWith('toolwatch_feedback')) };
}

describe('the feedback span tap in two halves', () => {
  it.each([false, true])('records what the whole-batch tap records (restricted sender: %s)', async (restricted) => {
    const whole = await recorded('take', restricted);
    expect(whole.rows.length).toBe(restricted ? 2 : 3);
    expect(await recorded('halves', restricted)).toEqual(whole);
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
