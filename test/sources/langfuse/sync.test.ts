/**
 * The Langfuse source end to end: the real app and client against a local Langfuse API (v2 cursor
 * pages newest first, v1 pages, 404 on an old server, 429 + Retry-After, 500, a hung answer), with
 * late arrivals and a crash mid-window. Exact counts on /metrics, no duplicates, no gaps, and the
 * scores written back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { metricValue, startToolwatch, type Harness } from '../../helpers/harness.js';
import { LangfuseSource } from '../../../src/sources/langfuse/source.js';
import { startFakeLangfuse, type FakeLangfuse } from '../../fakes/langfuse.js';
import { EXPECTED, lateGeneration, seedTraces } from './seed.js';
import { openaiChat } from '../../normalize/langfuse-shapes.js';

const MIN = 60_000;
let fake: FakeLangfuse;
let open: Harness[] = [];
let waits: number[] = [];
let skew = 0;

beforeEach(async () => {
  fake = await startFakeLangfuse();
  waits = [];
  skew = 0;
});
afterEach(async () => {
  for (const h of open) await h.close();
  open = [];
  await fake.close();
});

async function toolwatch(extra: Record<string, unknown> = {}, dbPath?: string): Promise<Harness> {
  const h = await startToolwatch({
    env: { LANGFUSE_PUBLIC_KEY: fake.publicKey, LANGFUSE_SECRET_KEY: fake.secretKey, LANGFUSE_HOST: fake.url },
    config: {
      ...(dbPath ? { database_url: dbPath } : {}),
      dedupe: { execution_grace: '100ms' },
      langfuse: {
        enabled: true,
        schedule: '0 0 1 1 *', // the tests run the job themselves
        page_size: 3,
        overlap: '5m',
        lag: '1m',
        max_window: '10m',
        initial_lookback: '45m',
        request_timeout: '1s', // generous: a loaded CI machine must not time out ordinary requests
        write_scores: true,
        scores_every: '1h',
        ...extra,
      },
    },
    services: {
      langfuse: {
        clock: () => Date.now() + skew,
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
    },
  });
  open.push(h);
  return h;
}

const calls = (text: string, outcome: string) =>
  metricValue(text, 'toolwatch_tool_calls_total', { source: 'langfuse', outcome });

async function waitFor(fn: () => Promise<boolean>, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function expectCounts(h: Harness, want: Record<string, number>): Promise<void> {
  await waitFor(async () => calls(await h.metrics(), 'unvalidated') >= (want['unvalidated'] ?? 0));
  const text = await h.metrics();
  for (const o of ['valid', 'InvalidJson', 'UnknownName', 'SchemaMismatch', 'unvalidated'])
    expect([o, calls(text, o)]).toEqual([o, want[o] ?? 0]);
}

describe('Langfuse source over the v2 API', () => {
  it('syncs every shape once, through 429/500/timeouts, picks up late arrivals and writes scores back', async () => {
    const t0 = Date.now() - 40 * MIN;
    fake.observations.push(...seedTraces(t0));
    fake.faults.v2.push({ status: 429, retryAfter: '2' }, { status: 500 }, { hangMs: 1500 });
    const h = await toolwatch();
    const lf = h.services.langfuse!;

    const first = await lf.source.runOnce();
    expect(first.observations).toBe(fake.observations.length);
    // Retry-After honoured as sent (2 s), then backoff for the 500 and the timeout.
    expect(waits).toEqual([2000, 2000, 4000]);
    await expectCounts(h, EXPECTED);
    // Executions are counted once their status grace ended (dedupe.status_grace).
    await h.services.pipeline.settle(Date.now() + 60_000);
    let text = await h.metrics();
    expect(metricValue(text, 'toolwatch_spans_received_total', { source: 'langfuse' })).toBe(fake.observations.length);
    expect(metricValue(text, 'toolwatch_langfuse_observations_total')).toBe(fake.observations.length);
    expect(metricValue(text, 'toolwatch_langfuse_observations_total', { type: 'GENERATION' })).toBe(6);
    expect(metricValue(text, 'toolwatch_langfuse_observations_total', { type: 'TOOL' })).toBe(3);
    expect(metricValue(text, 'toolwatch_langfuse_requests_total', { endpoint: 'v2_observations', status: '429' })).toBe(
      1,
    );
    expect(metricValue(text, 'toolwatch_langfuse_requests_total', { endpoint: 'v2_observations', status: '500' })).toBe(
      1,
    );
    expect(
      metricValue(text, 'toolwatch_langfuse_requests_total', { endpoint: 'v2_observations', status: 'timeout' }),
    ).toBe(1);
    expect(metricValue(text, 'toolwatch_tool_executions_total', { tool: 'get_weather', status: 'error' })).toBe(1);
    const v2 = fake.log.filter((r) => r.endpoint === 'v2' && r.status === 200);
    expect(
      v2.every(
        (r) =>
          ['io', 'model', 'usage'].every((g) => r.query['fields']!.split(',').includes(g)) && r.query['limit'] === '3',
      ),
    ).toBe(true);
    expect(v2.some((r) => r.query['cursor'])).toBe(true);

    // Late arrival: a generation that starts 2 minutes before the watermark, inside the 5-minute overlap.
    const wm = lf.source.watermarkMs!;
    expect(wm).toBeGreaterThan(Date.now() - 2 * MIN);
    fake.observations.push(lateGeneration(wm - 2 * MIN));
    skew = 30_000;
    const second = await lf.source.runOnce();
    expect(second.observations).toBe(1); // only the late one: the re-read overlap is deduplicated
    await expectCounts(h, { ...EXPECTED, valid: EXPECTED.valid + 1 });
    text = await h.metrics();
    expect(metricValue(text, 'toolwatch_spans_received_total', { source: 'langfuse' })).toBe(fake.observations.length);
    expect(metricValue(text, 'toolwatch_langfuse_duplicate_observations_total')).toBeGreaterThan(0);
    expect(metricValue(text, 'toolwatch_source_lag_seconds', { source: 'langfuse' })).toBeGreaterThan(0);

    // Scores: one per counted proposal (F was counted from its tool span alone, after the grace period).
    fake.faults.scores.push({ status: 500 });
    const r1 = await lf.scores.flush();
    expect(r1).toMatchObject({ sent: 5, retry: 1 });
    expect(await lf.scores.flush()).toMatchObject({ sent: 0 }); // the failed one waits for its backoff
    skew += 5_000;
    expect(await lf.scores.flush()).toMatchObject({ sent: 1, retry: 0 });
    const outcome = [...fake.scores.values()].filter((s) => s['name'] === 'tool_call_outcome');
    expect(outcome.map((s) => `${s['traceId']}:${s['observationId']}:${s['value']}`).sort()).toEqual(
      [
        'trA:A1:valid',
        'trB:B1:SchemaMismatch',
        'trC:C1:valid',
        'trD:D1:InvalidJson',
        'trE:E1:UnknownName',
        'trG:G1:valid',
      ].sort(),
    );
    expect(outcome.every((s) => s['dataType'] === 'CATEGORICAL')).toBe(true);
    expect(
      await lf.writeVerdictScores({
        traceId: 'trA',
        runId: '7',
        reachedGoal: true,
        scores: { unnecessary_calls: 0 },
        comment: 'done',
      }),
    ).toBe(2);
    expect(
      await lf.onJudgeVerdict({
        traceId: 'trB',
        runId: 8,
        status: 'ok',
        verdict: { reached_goal: false, unnecessary_calls: 1, dangerous_calls: 0, reasoning: 'bad args' },
      }),
    ).toBeUndefined();
    await lf.scores.flush();
    const goal = [...fake.scores.values()]
      .filter((s) => s['name'] === 'reached_goal')
      .map((s) => [s['traceId'], s['value'], s['dataType']]);
    expect(goal.sort()).toEqual([
      ['trA', 1, 'BOOLEAN'],
      ['trB', 0, 'BOOLEAN'],
    ]);
    text = await h.metrics();
    expect(metricValue(text, 'toolwatch_langfuse_scores_total', { status: 'sent' })).toBe(fake.scores.size);
    expect(await lf.state.pendingScores()).toBe(0);

    // GET /api/sources: watermark, lag, counts; never a key.
    const res = await fetch(`${h.url}/api/sources`);
    const body = await res.text();
    expect(body).not.toContain(fake.secretKey);
    const src = (JSON.parse(body) as { sources: Record<string, unknown>[] }).sources.find(
      (s) => s['name'] === 'langfuse',
    )!;
    // The faults were retried within the run, so no run failed: no last error.
    expect(src).toMatchObject({
      enabled: true,
      mode: 'v2',
      lastError: null,
      counts: { observations: fake.observations.length, calls: 6 },
      pendingScores: 0,
    });
    expect(Date.parse(src['watermark'] as string)).toBe(lf.source.watermarkMs);
    expect(JSON.stringify(h.services.config)).not.toContain(fake.secretKey);
  });

  it('rejects bad credentials without moving the watermark, and records the error', async () => {
    fake.observations.push(...seedTraces(Date.now() - 40 * MIN));
    const h = await startToolwatch({
      env: { LANGFUSE_PUBLIC_KEY: 'pk-wrong', LANGFUSE_SECRET_KEY: 'sk-wrong', LANGFUSE_BASE_URL: fake.url },
      config: { langfuse: { enabled: true, schedule: '0 0 1 1 *' } },
    });
    open.push(h);
    await expect(h.services.langfuse!.source.runOnce()).rejects.toThrow(/401/);
    const st = await h.services.langfuse!.state.load();
    expect(st).toMatchObject({ watermarkMs: null, lastError: 'HTTP 401 (401)', observations: 0 });
    expect(fake.log.filter((r) => r.status === 401)).toHaveLength(1); // not retried
  });
});

describe('Langfuse source on an old server (no v2)', () => {
  it('falls back to the v1 pages on 404 and stays there for the process', async () => {
    fake.oldServer = true;
    const t0 = Date.now() - 40 * MIN;
    fake.observations.push(...seedTraces(t0));
    const h = await toolwatch();
    const lf = h.services.langfuse!;
    await lf.source.runOnce();
    await expectCounts(h, EXPECTED);
    expect(lf.source.apiMode).toBe('v1');
    fake.observations.push(lateGeneration(lf.source.watermarkMs! - MIN));
    skew = 30_000;
    await lf.source.runOnce();
    await expectCounts(h, { ...EXPECTED, valid: 3 });
    expect(fake.log.filter((r) => r.endpoint === 'v2')).toHaveLength(1);
    expect(fake.log.filter((r) => r.endpoint === 'v1').every((r) => r.query['page'] && r.query['limit'] === '3')).toBe(
      true,
    );
    const text = await h.metrics();
    expect(metricValue(text, 'toolwatch_spans_received_total', { source: 'langfuse' })).toBe(fake.observations.length);
    const src = (await (await fetch(`${h.url}/api/sources`)).json()) as { sources: { name: string; mode?: string }[] };
    expect(src.sources.find((s) => s.name === 'langfuse')!.mode).toBe('v1');
  });
});

describe('Langfuse source: a crash mid-window', () => {
  it('resumes the window from the persisted watermark with no duplicate and no gap', async () => {
    const t0 = Date.now() - 40 * MIN;
    fake.observations.push(...seedTraces(t0));
    const a = await toolwatch();
    const dbPath = a.services.config.database.kind === 'sqlite' ? a.services.config.database.path : '';
    const lfA = a.services.langfuse!;
    // The same worker with a pipeline that dies on the batch holding D1 (mid-window, after other pages committed).
    let batches = 0;
    const crashing = new LangfuseSource(
      {
        api: (lfA.source as unknown as { deps: { api: never } }).deps.api,
        state: lfA.state,
        ingest: async (facts, n, extend) => {
          if (facts.some((f) => f.spanId === 'D1')) throw new Error('toolwatch crashed');
          batches++;
          return a.services.pipeline.ingestFacts(facts, 'langfuse', n, extend);
        },
        clock: Date.now,
        sleep: async () => {},
        log: a.services.log,
      },
      lfA.source.opts,
    );
    await expect(crashing.runOnce()).rejects.toThrow('toolwatch crashed');
    expect(batches).toBeGreaterThan(1);
    const crashed = await lfA.state.load();
    expect(crashed.watermarkMs).not.toBeNull(); // earlier windows completed …
    expect(crashed.watermarkMs!).toBeLessThan(Date.now() - 2 * MIN); // … the one in progress did not
    expect(crashed.lastError).toBe('toolwatch crashed');
    const textA = await a.metrics();
    const spansA = metricValue(textA, 'toolwatch_spans_received_total', { source: 'langfuse' });
    expect(spansA).toBeGreaterThan(0);
    await a.services.pipeline.settle(Date.now() + 60_000);
    const callsA = ['valid', 'InvalidJson', 'UnknownName', 'SchemaMismatch', 'unvalidated']
      .map((o) => calls(textA, o))
      .reduce((x, y) => x + y, 0);
    // The process goes away; its database stays (its folder goes with close() after the test).
    await a.stop();

    // A new process over the same database.
    const b = await toolwatch({}, dbPath);
    await b.services.langfuse!.source.runOnce();
    await waitFor(
      async () => (await b.services.store.callCounts({ sinceMs: 0 })).reduce((s, r) => s + r.count, 0) >= 6,
    );
    const textB = await b.metrics();
    // No gap, no duplicate: both processes together saw every observation exactly once …
    expect(spansA + metricValue(textB, 'toolwatch_spans_received_total', { source: 'langfuse' })).toBe(
      fake.observations.length,
    );
    // … and the store holds each call once, by outcome.
    const byOutcome: Record<string, number> = {};
    for (const r of await b.services.store.callCounts({ sinceMs: 0 }))
      byOutcome[r.outcome] = (byOutcome[r.outcome] ?? 0) + r.count;
    expect(byOutcome).toEqual(EXPECTED);
    const callsB = ['valid', 'InvalidJson', 'UnknownName', 'SchemaMismatch', 'unvalidated']
      .map((o) => calls(textB, o))
      .reduce((x, y) => x + y, 0);
    expect(callsA + callsB).toBe(6);
    const st = await b.services.langfuse!.state.load();
    expect(st.observations).toBe(fake.observations.length);
    expect(st.watermarkMs).toBeGreaterThan(Date.now() - 2 * MIN);
  });
});

/**
 * A GENERATION counted by one process and its TOOL taken by the next (issue 8, Medium 9): TOOL
 * observations wait for the end of their window, so a restart between the two — graceful, between
 * windows, or a crash in the middle of one — must not count the call a second time from the TOOL.
 */
describe('Langfuse source: a call is counted once across a restart', () => {
  const iso = (ms: number) => new Date(ms).toISOString();
  const gen = (id: string, traceId: string, startMs: number, calls: { id: string; name: string; args: string }[]) => ({
    id,
    traceId,
    type: 'GENERATION',
    name: 'chat',
    startTime: iso(startMs),
    endTime: iso(startMs + 400),
    model: 'gpt-4o',
    ...openaiChat(calls),
  });
  const toolObs = (id: string, traceId: string, startMs: number, name: string, callId?: string) => ({
    id,
    traceId,
    type: 'TOOL',
    name,
    startTime: iso(startMs),
    endTime: iso(startMs + 100),
    input: { city: 'Paris' },
    output: 'sunny',
    ...(callId ? { metadata: { tool_call_id: callId } } : {}),
  });

  async function byOutcome(h: Harness): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const r of await h.services.store.callCounts({ sinceMs: 0 })) out[r.outcome] = (out[r.outcome] ?? 0) + r.count;
    return out;
  }

  async function stopKeepingDb(h: Harness): Promise<string> {
    const dbPath = h.services.config.database.kind === 'sqlite' ? h.services.config.database.path : '';
    await h.stop();
    return dbPath;
  }

  it('graceful: the GENERATION in the last window before the restart, its TOOLs in the first after it', async () => {
    const tg = Date.now() - 20 * MIN;
    fake.observations.push(
      gen('R1', 'trR', tg, [
        { id: 'call_r', name: 'get_weather', args: '{"city":"Paris"}' },
        { id: 'call_s', name: 'get_weather', args: '{"city":"Rome"}' },
      ]),
      toolObs('R2', 'trR', tg + 3_000, 'get_weather', 'call_r'),
      // No id anywhere: paired by name.
      toolObs('R3', 'trR', tg + 4_000, 'get_weather'),
    );
    // The first process syncs up to just after the GENERATION: its watermark lies between it and the TOOLs.
    skew = tg + 1_000 + MIN - Date.now();
    const a = await toolwatch();
    await a.services.langfuse!.source.runOnce();
    const wm = a.services.langfuse!.source.watermarkMs!;
    expect(wm > tg && wm < tg + 3_000).toBe(true);
    const dbPath = await stopKeepingDb(a);

    skew = 0;
    const b = await toolwatch({}, dbPath);
    const run = await b.services.langfuse!.source.runOnce();
    expect(run.observations).toBe(2); // the TOOLs; the GENERATION is in the overlap and skipped
    await new Promise((r) => setTimeout(r, 300)); // past the grace period
    await b.services.pipeline.settle(Date.now() + 60_000);
    expect(await byOutcome(b)).toEqual({ valid: 2 });
    expect(metricValue(await b.metrics(), 'toolwatch_tool_executions_total')).toBe(2);
  });

  it('crash mid-window: the GENERATION committed, the window died before its TOOLs', async () => {
    const tg = Date.now() - 20 * MIN;
    fake.observations.push(
      gen('Q1', 'trQ', tg, [{ id: 'call_q', name: 'get_weather', args: '{"city":"Paris"}' }]),
      toolObs('Q2', 'trQ', tg + 3_000, 'get_weather', 'call_q'),
    );
    const a = await toolwatch();
    const lfA = a.services.langfuse!;
    const crashing = new LangfuseSource(
      {
        api: (lfA.source as unknown as { deps: { api: never } }).deps.api,
        state: lfA.state,
        ingest: async (facts, n, extend) => {
          if (facts.some((f) => f.spanId === 'Q2')) throw new Error('toolwatch crashed');
          return a.services.pipeline.ingestFacts(facts, 'langfuse', n, extend);
        },
        clock: Date.now,
        sleep: async () => {},
        log: a.services.log,
      },
      lfA.source.opts,
    );
    await expect(crashing.runOnce()).rejects.toThrow('toolwatch crashed');
    expect(await byOutcome(a)).toEqual({ valid: 1 });
    const dbPath = await stopKeepingDb(a);

    const b = await toolwatch({}, dbPath);
    await b.services.langfuse!.source.runOnce();
    await new Promise((r) => setTimeout(r, 300));
    await b.services.pipeline.settle(Date.now() + 60_000);
    expect(await byOutcome(b)).toEqual({ valid: 1 });
    expect(metricValue(await b.metrics(), 'toolwatch_tool_executions_total')).toBe(1);
  });
});

/**
 * What the two observation endpoints really return (issue 8, Low 17; Langfuse's OpenAPI document):
 * v2's `model` field group is `providedModelName`, `internalModelId`, `modelParameters` (v1 has
 * `model`), and v2 cuts every metadata value over 200 characters unless its key is listed in
 * `expandMetadata`. The fake Langfuse does both; the model and the service named in a long
 * `resourceAttributes` must come through either way.
 */
describe('Langfuse source: model and metadata as each API version returns them', () => {
  const resourceAttributes = {
    'service.name': 'checkout-agent',
    'service.version': '4.2.1',
    'telemetry.sdk.name': 'opentelemetry',
    'telemetry.sdk.language': 'python',
    'telemetry.sdk.version': '1.36.0',
    'deployment.environment': 'production',
    'host.name': 'ip-10-0-12-34.eu-central-1.compute.internal',
  };
  const seed = (t: number) => [
    {
      id: 'M1',
      traceId: 'trM',
      type: 'GENERATION',
      name: 'chat',
      startTime: new Date(t).toISOString(),
      endTime: new Date(t + 400).toISOString(),
      model: 'gpt-4.1-mini',
      metadata: { resourceAttributes, scope: { name: 'openinference.instrumentation.openai', version: '0.1.40' } },
      ...openaiChat([{ id: 'call_m', name: 'get_weather', args: '{"city":"Paris"}' }]),
    },
  ];

  it.each([
    { api: 'v2', old: false },
    { api: 'v1', old: true },
  ])('$api: the model label and the service come through', async ({ old }) => {
    expect(JSON.stringify(resourceAttributes).length).toBeGreaterThan(200);
    fake.oldServer = old;
    fake.observations.push(...seed(Date.now() - 20 * MIN));
    const h = await toolwatch();
    await h.services.langfuse!.source.runOnce();
    const text = await h.metrics();
    const labels = { source: 'langfuse', service: 'checkout-agent', model: 'gpt-4.1-mini', outcome: 'valid' };
    expect(metricValue(text, 'toolwatch_tool_calls_total', labels)).toBe(1);
    if (!old) {
      const v2 = fake.log.filter((r) => r.endpoint === 'v2' && r.status === 200);
      expect(v2.every((r) => r.query['expandMetadata']?.split(',').includes('resourceAttributes'))).toBe(true);
    }
  });
});
