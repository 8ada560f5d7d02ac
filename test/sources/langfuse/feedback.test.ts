/**
 * User feedback pulled from Langfuse scores: the real app and @langfuse/client against the local
 * Langfuse API — GET /api/public/v3/scores (subject and details groups, cursor pages), and on a
 * server without it GET /api/public/v2/scores per name; BOOLEAN, NUMERIC and CATEGORICAL values;
 * scores without a trace or with an unreadable value counted as ignored; 429 + Retry-After waited;
 * the overlap read again without counting twice.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { metricValue, startToolwatch, type Harness } from '../../helpers/harness.js';
import { startFakeLangfuse, type FakeLangfuse } from '../../fakes/langfuse.js';

const MIN = 60_000;
let fake: FakeLangfuse;
let h: Harness | undefined;
let waits: number[] = [];
let skew = 0;

beforeEach(async () => {
  fake = await startFakeLangfuse();
  waits = [];
  skew = 0;
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await fake.close();
});

async function toolwatch(extra: Record<string, unknown> = {}): Promise<Harness> {
  h = await startToolwatch({
    listen: false,
    env: { LANGFUSE_PUBLIC_KEY: fake.publicKey, LANGFUSE_SECRET_KEY: fake.secretKey, LANGFUSE_HOST: fake.url },
    config: {
      langfuse: {
        enabled: true,
        schedule: '0 0 1 1 *',
        overlap: '5m',
        lag: '1m',
        max_window: '10m',
        initial_lookback: '45m',
        request_timeout: '2s',
        ...extra,
      },
    },
    services: { langfuse: { clock: () => Date.now() + skew, sleep: async (ms) => void waits.push(ms) } },
  });
  return h;
}

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

function seedScores(): void {
  fake.addScore({
    traceId: 'trA',
    name: 'user-feedback',
    dataType: 'BOOLEAN',
    value: 0,
    comment: 'wrong city',
    timestamp: ago(30 * MIN),
  });
  fake.addScore({
    traceId: 'trB',
    observationId: 'B1',
    name: 'user_feedback',
    dataType: 'NUMERIC',
    value: -1,
    timestamp: ago(20 * MIN),
  });
  fake.addScore({
    traceId: 'trC',
    name: 'user-feedback',
    dataType: 'CATEGORICAL',
    value: 'thumbs_up',
    timestamp: ago(12 * MIN),
  });
  fake.addScore({ traceId: 'trD', name: 'user-feedback', dataType: 'BOOLEAN', value: 1, timestamp: ago(25 * MIN) });
  fake.addScore({
    sessionId: 'sess-1',
    name: 'user-feedback',
    dataType: 'BOOLEAN',
    value: 0,
    timestamp: ago(15 * MIN),
  }); // no trace
  fake.addScore({ traceId: 'trE', name: 'user_feedback', dataType: 'NUMERIC', value: 5, timestamp: ago(14 * MIN) }); // out of range
  fake.addScore({
    traceId: 'trF',
    name: 'tool_call_outcome',
    dataType: 'CATEGORICAL',
    value: 'SchemaMismatch',
    timestamp: ago(10 * MIN),
  }); // not feedback
  fake.addScore({ traceId: 'trG', name: 'user-feedback', dataType: 'BOOLEAN', value: 0, timestamp: ago(3 * 60 * MIN) }); // before the first window
}

async function stored(tw: Harness) {
  return tw.services.store.sql.all<Record<string, unknown>>(
    'SELECT trace_id, source, service, value, comment, origin FROM feedback ORDER BY trace_id',
  );
}

describe('Langfuse feedback scores', () => {
  it('reads v3 scores by name in closed windows, maps values, and counts each trace once across the overlap', async () => {
    seedScores();
    const tw = await toolwatch({ service: 'lf-agent' });
    const pull = tw.services.langfuse!.feedback!;
    const res = await pull.runOnce();
    expect(res).toMatchObject({ taken: 4, scores: 6 });
    expect(await stored(tw)).toEqual([
      {
        trace_id: 'trA',
        source: 'langfuse',
        service: 'lf-agent',
        value: -1,
        comment: 'wrong city',
        origin: 'langfuse',
      },
      { trace_id: 'trB', source: 'langfuse', service: 'lf-agent', value: -1, comment: null, origin: 'langfuse' },
      { trace_id: 'trC', source: 'langfuse', service: 'lf-agent', value: 1, comment: null, origin: 'langfuse' },
      { trace_id: 'trD', source: 'langfuse', service: 'lf-agent', value: 1, comment: null, origin: 'langfuse' },
    ]);
    const reads = fake.log.filter((l) => l.endpoint === 'scoresV3');
    expect(reads.length).toBeGreaterThanOrEqual(5); // 45 minutes in windows of 10
    for (const r of reads)
      expect(r.query).toMatchObject({ name: 'user-feedback,user_feedback', fields: 'subject,details', limit: '100' });
    let text = await tw.metrics();
    expect(metricValue(text, 'toolwatch_feedback_total', { service: 'lf-agent', value: 'negative' })).toBe(2);
    expect(metricValue(text, 'toolwatch_feedback_total', { service: 'lf-agent', value: 'positive' })).toBe(2);
    expect(metricValue(text, 'toolwatch_feedback_ignored_total', { source: 'langfuse', reason: 'no_trace' })).toBe(1);
    expect(metricValue(text, 'toolwatch_feedback_ignored_total', { source: 'langfuse', reason: 'bad_value' })).toBe(1);
    expect(metricValue(text, 'toolwatch_langfuse_requests_total', { endpoint: 'v3_scores_read', status: '200' })).toBe(
      reads.length,
    );

    // Two minutes on: the overlap is read again, nothing is counted twice; a new thumbs-down is.
    fake.addScore({ traceId: 'trH', name: 'user-feedback', dataType: 'BOOLEAN', value: 0, timestamp: ago(90_000) });
    skew = 2 * MIN;
    expect(await pull.runOnce()).toMatchObject({ windows: 1, taken: 1 });
    text = await tw.metrics();
    expect(metricValue(text, 'toolwatch_feedback_total', { service: 'lf-agent', value: 'negative' })).toBe(3);
    const info = (await tw.app.inject({ method: 'GET', url: '/api/sources' })).json() as {
      sources: { name: string; feedback?: unknown }[];
    };
    expect(info.sources.find((s) => s.name === 'langfuse')!.feedback).toMatchObject({
      scoreNames: ['user-feedback', 'user_feedback'],
      mode: 'v3',
      scores: 5,
    });
  });

  it('falls back to v2 scores (one name per request) on a server without v3, waits out a 429, reads 0…1 numbers when told to', async () => {
    fake.noScoresV3 = true;
    fake.faults.scoresV2.push({ status: 429, retryAfter: '7' });
    fake.addScore({ traceId: 'trA', name: 'user_feedback', dataType: 'NUMERIC', value: 0, timestamp: ago(20 * MIN) });
    fake.addScore({ traceId: 'trB', name: 'user_feedback', dataType: 'NUMERIC', value: 1, timestamp: ago(20 * MIN) });
    fake.addScore({ traceId: 'trC', name: 'thumbs', dataType: 'CATEGORICAL', value: 'down', timestamp: ago(20 * MIN) });
    const tw = await toolwatch({ feedback_scores: ['user_feedback', 'thumbs'], feedback_numeric: 'unit' });
    const res = await tw.services.langfuse!.feedback!.runOnce();
    expect(res.taken).toBe(3);
    expect((await stored(tw)).map((r) => [r.trace_id, r.value])).toEqual([
      ['trA', -1],
      ['trB', 1],
      ['trC', -1],
    ]);
    expect(waits).toContain(7000);
    expect(fake.log.filter((l) => l.endpoint === 'scoresV3').map((l) => l.status)).toEqual([404]);
    const v2 = fake.log.filter((l) => l.endpoint === 'scoresV2' && l.status === 200);
    expect(new Set(v2.map((l) => l.query.name))).toEqual(new Set(['user_feedback', 'thumbs']));
    expect(tw.services.langfuse!.feedback!.apiMode).toBe('v2');
    const text = await tw.metrics();
    expect(metricValue(text, 'toolwatch_langfuse_requests_total', { endpoint: 'v2_scores_read', status: '429' })).toBe(
      1,
    );
  });

  it('pulls nothing when langfuse.feedback_scores is empty', async () => {
    seedScores();
    const tw = await toolwatch({ feedback_scores: [] });
    expect(tw.services.langfuse!.feedback).toBeUndefined();
  });
});
