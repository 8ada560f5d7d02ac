/**
 * error_budget_burn: the SRE workbook's multi-window, multi-burn-rate rule. A table over the pure
 * evaluate() (which pair fires, the short window stopping an alert once the burning stops, too few
 * calls, the combined rate), then the real app: calls through the real OTel exporter, the real
 * minute aggregates, the real evaluator at chosen instants — fast burn fires, the slow pair carries
 * it after the 5m window has emptied, and it resolves once the 30m window has.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  errorBudgetBurn,
  type BurnData,
  type ErrorBudgetBurnParams,
} from '../../src/alerts/kinds/error-budget-burn.js';
import { slackPayload } from '../../src/alerts/notifiers/slack.js';
import type { OutcomeName } from '../../src/model.js';
import type { CallCountRow, ExecutionCountRow } from '../../src/store/store.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient } from '../helpers/otel.js';
import { agentCalls } from './helpers.js';

const params = (over: Partial<ErrorBudgetBurnParams> = {}): ErrorBudgetBurnParams => ({
  objective: 0.99,
  windows: [
    { long: '1h', short: '5m', burn_rate: 14.4 },
    { long: '6h', short: '30m', burn_rate: 6 },
  ],
  min_calls: 20,
  by: ['service'],
  include_execution: false,
  statuses: ['client_error'],
  ...over,
});

const rows = (valid: number, failed: number, service = 'shop'): CallCountRow[] => [
  { service, model: 'm', tool: 'pay', outcome: 'valid' as OutcomeName, count: valid },
  { service, model: 'm', tool: 'pay', outcome: 'SchemaMismatch' as OutcomeName, count: failed },
];

/** [valid, failed] per window. */
function data(w: Record<string, [number, number]>, executions: ExecutionCountRow[] = []): BurnData {
  return new Map(Object.entries(w).map(([k, [v, f]]) => [k, { calls: rows(v, f), executions }]));
}

describe('error_budget_burn evaluate()', () => {
  const cases: { name: string; d: BurnData; p?: Partial<ErrorBudgetBurnParams>; active: boolean; summary: string }[] = [
    {
      name: 'fast burn: 20 % failing over 1h and 5m (20× ≥ 14.4×)',
      d: data({ '1h': [800, 200], '5m': [80, 20], '6h': [4800, 200], '30m': [400, 100] }),
      active: true,
      summary:
        'error budget burning 20× over 1h and 20× over 5m (≥ 14.4× in both; objective 99%, 200 of 1000 calls failed over 1h)',
    },
    {
      name: 'it stopped: the 1h window still burns, the 5m one is clean, the slow pair is under 6×',
      d: data({ '1h': [840, 160], '5m': [100, 0], '6h': [5840, 160], '30m': [500, 0] }),
      active: false,
      summary:
        'error budget burning 16× over 1h and 0× over 5m (alert at 14.4× in both; objective 99%, 160 of 1000 calls failed over 1h)',
    },
    {
      name: 'slow burn: 7 % over 6h and 8 % over 30m (the fast pair is under 14.4×)',
      d: data({ '1h': [930, 70], '5m': [93, 7], '6h': [5580, 420], '30m': [460, 40] }),
      active: true,
      summary:
        'error budget burning 7× over 6h and 8× over 30m (≥ 6× in both; objective 99%, 420 of 6000 calls failed over 6h)',
    },
    {
      name: 'under the budget everywhere',
      d: data({ '1h': [995, 5], '5m': [100, 0], '6h': [5970, 30], '30m': [498, 2] }),
      active: false,
      summary:
        'error budget burning 0.5× over 6h and 0.4× over 30m (alert at 6× in both; objective 99%, 30 of 6000 calls failed over 6h)',
    },
    {
      name: 'too few calls: 100 % failing, but only 5 in the long windows',
      d: data({ '1h': [0, 5], '5m': [0, 5], '6h': [0, 5], '30m': [0, 5] }),
      active: false,
      summary: 'only 5 calls in 6h (min_calls 20)',
    },
    {
      name: 'a looser objective (90 %): 20 % failing is a 2× burn, nothing fires',
      d: data({ '1h': [800, 200], '5m': [80, 20], '6h': [4800, 1200], '30m': [400, 100] }),
      p: { objective: 0.9 },
      active: false,
      summary:
        'error budget burning 2× over 6h and 2× over 30m (alert at 6× in both; objective 90%, 1200 of 6000 calls failed over 6h)',
    },
    {
      name: 'include_execution: 4xx downstream on calls that passed the check count too',
      d: data({ '1h': [1000, 0], '5m': [100, 0], '6h': [6000, 0], '30m': [500, 0] }, [
        { service: 'shop', model: 'm', tool: 'pay', status: 'client_error', callOutcome: 'valid', count: 20 },
      ]),
      p: { include_execution: true, windows: [{ long: '1h', short: '5m', burn_rate: 1 }] },
      active: true,
      summary:
        'error budget burning 2× over 1h and 20× over 5m (≥ 1× in both; objective 99%, 20 of 1000 calls failed over 1h)',
    },
  ];
  it.each(cases)('$name', ({ d, p, active, summary }) => {
    const [o, ...more] = errorBudgetBurn.evaluate(params(p), d, 0);
    expect(more).toEqual([]);
    expect(o!.active).toBe(active);
    expect(o!.summary).toBe(summary);
  });

  it('the Slack message shows the burn rate as a factor', () => {
    const [o] = errorBudgetBurn.evaluate(
      params(),
      data({ '1h': [800, 200], '5m': [80, 20], '6h': [4800, 200], '30m': [400, 100] }),
      0,
    );
    const body = slackPayload({
      status: 'firing',
      repeat: false,
      rule: 'budget',
      kind: 'error_budget_burn',
      severity: 'critical',
      labels: o!.labels,
      groupKey: '[]',
      fingerprint: 'f',
      value: o!.value,
      threshold: o!.threshold,
      summary: o!.summary,
      details: o!.details,
      startsAt: 0,
      endsAt: null,
      link: 'https://tw.example.com/api/failures',
    }) as { blocks: { fields?: { text: string }[] }[] };
    expect(body.blocks[1]!.fields![2]!.text).toBe('*Value*\n20× vs threshold 14.4×');
  });
});

let tw: Harness | undefined;
afterEach(async () => {
  await tw?.close();
  tw = undefined;
});

describe('error_budget_burn on the real app', () => {
  it('fires on a fast burn, the slow pair carries it once the 5m window is empty, resolves when the 30m one is', async () => {
    tw = await startToolwatch({ config: { alerts: { rules: [{ name: 'budget', kind: 'error_budget_burn' }] } } });
    const client = otelClient(tw.url, { service: 'weather-bot' });
    await agentCalls(client, { valid: 20, mismatch: 5 }); // 20 % failing: a 20× burn of a 1 % budget
    await client.shutdown();
    const now = Date.now();
    const at = async (ms: number) =>
      (await tw!.services.alerting.evaluate(now + ms))!.sent.map((s) => `${s.status}${s.repeat ? ' again' : ''}`);
    expect(await at(0)).toEqual(['firing']);
    const [state] = await tw.services.alerting.store.states();
    expect(state!.summary).toBe(
      'error budget burning 20× over 1h and 20× over 5m (≥ 14.4× in both; objective 99%, 5 of 25 calls failed over 1h)',
    );
    expect(await at(10 * 60_000)).toEqual([]); // 5m empty; 6h and 30m still burn 20×
    expect((await tw.services.alerting.store.states())[0]!.summary).toBe(
      'error budget burning 20× over 6h and 20× over 30m (≥ 6× in both; objective 99%, 5 of 25 calls failed over 6h)',
    );
    expect(await at(35 * 60_000)).toEqual(['resolved']);
  });
});
