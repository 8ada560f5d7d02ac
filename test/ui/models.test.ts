/**
 * Models side by side: a service whose model was switched 20 minutes ago (the new one errs more,
 * gets refused downstream and needs more calls per trajectory) and a steady service, sent through the
 * real OpenTelemetry exporter with explicit times, judged verdicts recorded for both models. GET
 * /api/stats?by=model answers with the numbers worked out by hand, and the page's models section —
 * read back in headless Chromium from its data attributes — shows the same, with the switch marked.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRow } from '../../src/queries/models.js';
import { minuteOf } from '../../src/store/store.js';
import { downstreamTurn, type PlannedCall } from '../helpers/downstream-agent.js';
import { openPage, recordProblems, SKIP_BROWSER } from '../helpers/browser.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient } from '../helpers/otel.js';

const MIN = 60_000;
const M = minuteOf(Date.now());
/** The minute the weekend service switched from gpt-4o to gpt-5-mini. */
const SWITCH = M - 20 * MIN;
const valid = '{"city":"Oslo"}';

let tw: Harness;
const traceIds: { model: string; traceId: string }[] = [];

async function turns(
  service: string,
  model: string,
  starts: number[],
  calls: (i: number) => PlannedCall[],
): Promise<void> {
  const client = otelClient(tw.url, { service, batchSize: 256 });
  for (let i = 0; i < starts.length; i++)
    await downstreamTurn(client, { model, calls: calls(i), t0: starts[i]! + 1_000, tokens: 100 });
  await client.shutdown();
}

beforeAll(async () => {
  tw = await startToolwatch({ config: { judge: { enabled: true, model: 'judge-model', sample_rate: 1 } } });
  const ok = (prefix: string, n: number): PlannedCall[] =>
    Array.from({ length: n }, (_, k) => ({
      id: `${prefix}-${k}`,
      args: valid,
      http: { status: 200, order: 'same' },
      durationMs: 20,
    }));
  // gpt-4o: 6 trajectories of 2 calls, 50 … 25 minutes ago; all fine.
  await turns(
    'weekend',
    'gpt-4o',
    [50, 45, 40, 35, 30, 25].map((m) => M - m * MIN),
    (i) => ok(`o${i}`, 2),
  );
  // gpt-5-mini from SWITCH: 4 trajectories of 5 calls — one breaks the schema, one is refused (404).
  await turns(
    'weekend',
    'gpt-5-mini',
    [0, 5, 10, 15].map((m) => SWITCH + m * MIN),
    (i) => [
      ...ok(`n${i}`, 3),
      { id: `n${i}-bad`, args: '{"city":7}', durationMs: 20 },
      { id: `n${i}-404`, args: valid, http: { status: 404, order: 'before' }, durationMs: 20 },
    ],
  );
  // A steady service, new in the window: its first model is no "change".
  await turns(
    'steady',
    'claude-sonnet',
    [40, 10].map((m) => M - m * MIN),
    (i) => ok(`s${i}`, 1),
  );
  await tw.services.pipeline.settle(Date.now() + 3_600_000);
  // Verdicts as the judge records them: 3 on gpt-4o (all reached the goal), 2 on gpt-5-mini (one did).
  const judged = [
    ['gpt-4o', true],
    ['gpt-4o', true],
    ['gpt-4o', true],
    ['gpt-5-mini', true],
    ['gpt-5-mini', false],
  ] as const;
  let n = 0;
  for (const [model, reached] of judged) {
    n++;
    const traceId = n.toString(16).padStart(32, '9');
    traceIds.push({ model, traceId });
    await tw.services.judge.store.verdicts.recordVerdict({
      traceId,
      runId: 1,
      timeMs: Date.now() - 5 * MIN,
      service: 'weekend',
      model,
      status: 'ok',
      verdict: { reached_goal: reached, unnecessary_calls: 0, dangerous_calls: 0, reasoning: 'test' },
      promptVersion: 'v1',
      judgeModel: 'judge-model',
      probability: 1,
      weight: 1,
      inputTokens: 0,
      outputTokens: 0,
      cost: 0,
    });
  }
}, 60_000);

afterAll(async () => {
  await tw?.close();
});

const measure = (v: number) => ({ median: v, p90: v, mean: v });

describe('GET /api/stats?by=model', () => {
  it('per model within a service: error rate, unvalidated share, refusals, calls per trajectory, reached goal; the switch marked', async () => {
    const res = await tw.app.inject('/api/stats?window=1h&by=model');
    expect(res.statusCode).toBe(200);
    const body = res.json() as { by: string; models: ModelRow[]; modelChanges: unknown[] };
    expect(body.by).toBe('model');
    const pick = (m: ModelRow) => ({
      service: m.service,
      model: m.model,
      total: m.total,
      errorRate: m.errorRate,
      unvalidatedShare: m.unvalidatedShare,
      executions: m.executions.total,
      refused: m.executions.byStatus.client_error,
      trajectories: m.trajectories?.trajectories,
      calls: m.trajectories && {
        median: m.trajectories.toolCalls.median,
        p90: m.trajectories.toolCalls.p90,
        mean: m.trajectories.toolCalls.mean,
      },
      failed: m.trajectories?.failedCalls.mean,
      reachedGoal: m.reachedGoal && [m.reachedGoal.rate, m.reachedGoal.verdicts],
      changed: m.changed,
    });
    expect(body.models.map(pick)).toEqual([
      {
        service: 'steady',
        model: 'claude-sonnet',
        total: 2,
        errorRate: 0,
        unvalidatedShare: 0,
        executions: 2,
        refused: 0,
        trajectories: 2,
        calls: measure(1),
        failed: 0,
        reachedGoal: [null, 0],
        changed: null,
      },
      {
        service: 'weekend',
        model: 'gpt-5-mini',
        total: 20,
        errorRate: 4 / 20,
        unvalidatedShare: 0,
        executions: 20,
        refused: 4,
        trajectories: 4,
        calls: measure(5),
        failed: 2,
        reachedGoal: [0.5, 2],
        changed: { at: new Date(SWITCH).toISOString(), before: ['gpt-4o'] },
      },
      {
        service: 'weekend',
        model: 'gpt-4o',
        total: 12,
        errorRate: 0,
        unvalidatedShare: 0,
        executions: 12,
        refused: 0,
        trajectories: 6,
        calls: measure(2),
        failed: 0,
        reachedGoal: [1, 3],
        changed: null,
      },
    ]);
    expect(body.modelChanges).toEqual([
      { service: 'weekend', model: 'gpt-5-mini', at: new Date(SWITCH).toISOString(), before: ['gpt-4o'] },
    ]);
  });

  it('by=tool (the default) carries the same trajectories per service and model', async () => {
    const body = (await tw.app.inject('/api/stats?window=1h')).json() as {
      trajectories: {
        services: { service: string; trajectories: number }[];
        models: { model: string; toolCalls: unknown }[];
      };
    };
    expect(body.trajectories.services.map((s) => [s.service, s.trajectories])).toEqual([
      ['weekend', 10],
      ['steady', 2],
    ]);
    expect(body.trajectories.models.map((m) => [m.model, m.toolCalls])).toEqual([
      ['gpt-4o', measure(2)],
      ['gpt-5-mini', measure(5)],
      ['claude-sonnet', measure(1)],
    ]);
    expect((await tw.app.inject('/api/stats?by=nonsense')).statusCode).toBe(400);
  });
});

describe.skipIf(SKIP_BROWSER)('the page’s models section, in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    ({ browser, page } = await openPage());
    await recordProblems(page, problems);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows what /api/stats?by=model says, the switch marked, in the page’s order', async () => {
    const res = await page.goto(`${tw.url}/?window=1h`);
    expect(res?.status()).toBe(200);
    const shown =
      (await page.evaluate(`Array.from(document.querySelectorAll('#models-section tr[data-model]')).map((tr) => ({
      ...tr.dataset, cells: Array.from(tr.cells, (c) => c.innerText.trim()) }))`)) as Record<
        string,
        string & string[]
      >[];
    const api = ((await tw.app.inject('/api/stats?window=1h&by=model')).json() as { models: ModelRow[] }).models;
    const s = (v: number | null | undefined) => (v === null || v === undefined ? '' : String(v));
    expect(
      shown.map((r) => [
        r.service,
        r.model,
        r.calls,
        r.errorRate,
        r.unvalidatedShare,
        r.clientErrors,
        r.trajectories,
        r.callsMedian,
        r.callsP90,
        r.reachedGoal,
        r.changedAt,
      ]),
    ).toEqual(
      api.map((m) => [
        m.service,
        m.model,
        String(m.total),
        s(m.errorRate),
        s(m.unvalidatedShare),
        String(m.executions.byStatus.client_error),
        String(m.trajectories?.trajectories ?? 0),
        s(m.trajectories?.toolCalls.median),
        s(m.trajectories?.toolCalls.p90),
        s(m.reachedGoal?.rate),
        m.changed?.at ?? '',
      ]),
    );
    const mini = shown.find((r) => r.model === 'gpt-5-mini')!;
    //                  model (+ tag), calls, error rate, unvalidated, refused, trajectories, calls/traj, steps/traj, tokens/traj, reached goal
    expect(mini.cells).toEqual([
      `gpt-5-mini new since ${new Date(SWITCH).toISOString().slice(11, 16)}`,
      '20',
      '20.0%',
      '0%',
      '20.0%',
      '4',
      '5 · p90 5',
      '1 · p90 1',
      '100 · p90 100',
      '50.0% (2)',
    ]);
    const heads = await page.evaluate(
      `Array.from(document.querySelectorAll('#models-section h3')).map((h) => h.innerText)`,
    );
    expect(heads).toEqual(['steady 1 model', 'weekend model changed 2 models']);
    expect(problems).toEqual([]);
  });
});
