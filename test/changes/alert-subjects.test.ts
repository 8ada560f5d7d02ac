/**
 * What each alert kind is attributed on (its `cause()`, src/alerts/cause.ts) and the attributor over
 * the store (src/queries/alert-attribution.ts) on both engines: an execution alert compares the
 * execution statuses (execution_minutes) and names a model switch with the share of the new
 * failures on the new model; a drift alert compares the share of the tool whose share rose and
 * names the prompt change; an alert of no single service is said not to be attributable.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAILURE_OUTCOMES } from '../../src/model.js';
import { builtinKinds } from '../../src/kinds.js';
import { alertAttributor } from '../../src/queries/alert-attribution.js';
import type { Sql } from '../../src/store/sql.js';
import { storeEngines } from '../helpers/engines.js';

const MIN = 60_000;
const T = Date.UTC(2026, 11, 1, 10, 0);
const config = { windowMs: 6 * 3_600_000, pValue: 0.01 };
const kinds = builtinKinds().rules;
const causeOf = (kind: string, params: Record<string, unknown>, labels: Record<string, string>, details = {}) =>
  kinds.get(kind)!.cause!(params, labels, details);

describe('what each kind compares', () => {
  it.each([
    [
      'error_rate',
      {},
      { service: 's', tool: 't' },
      { service: 's', tool: 't', outcomes: FAILURE_OUTCOMES, of: 'calls' },
    ],
    ['error_rate', { service: 's' }, { model: 'm' }, { service: 's', outcomes: FAILURE_OUTCOMES, of: 'calls' }],
    ['error_rate_drift', {}, { service: 's' }, { service: 's', outcomes: FAILURE_OUTCOMES, of: 'calls' }],
    ['error_budget_burn', {}, { service: 's' }, { service: 's', outcomes: FAILURE_OUTCOMES, of: 'calls' }],
    ['definition_drift', {}, { service: 's', tool: 't', definition: 'v' }, { service: 's', tool: 't', of: 'calls' }],
    [
      'execution_error_rate',
      { statuses: ['client_error'] },
      { service: 's', tool: 't' },
      { service: 's', tool: 't', outcomes: ['client_error'], of: 'executions' },
    ],
    ['error_rate', {}, { tool: 't' }, { tool: 't', of: 'calls' }],
  ])('%s %j %j', (kind, params, labels, want) => {
    expect(causeOf(kind, params, labels)).toMatchObject(want);
  });

  it('drift: the tool whose share rose most, not the one that fell most', () => {
    const shifts = [
      { tool: 'a', before: 0.6, after: 0.2 },
      { tool: 'b', before: 0.1, after: 0.4 },
    ];
    expect(causeOf('drift', {}, { service: 's' }, { shifts })).toMatchObject({ service: 's', tool: 'b', of: 'share' });
  });

  it('kinds with nothing to compare carry no attribution', () => {
    for (const kind of ['unvalidated_share', 'new_problem', 'regressed_problem', 'judge_goal_rate'])
      expect(kinds.get(kind)!.cause).toBeUndefined();
  });
});

describe.each(storeEngines)('the attributor on $name', (engine) => {
  let dispose: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await dispose?.();
    dispose = undefined;
  });
  const open = async () => {
    const o = await engine.open();
    dispose = o.dispose;
    return o.store.sql;
  };
  const event = (sql: Sql, kind: string, from: string, to: string, tool = '') =>
    sql.run(
      'INSERT INTO change_events (time_ms, service, kind, tool, from_value, from_since, to_value) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [T + 20_000, 'svc', kind, tool, from, T - 3_600_000, to],
    );

  it.skipIf(engine.skip)(
    'execution alert: the model switch, on execution statuses, 100 % on the new model',
    async () => {
      const sql = await open();
      await event(sql, 'model', 'gpt-4o', 'gpt-4.1');
      // 20 executions a minute; after the switch 5 of them client_error.
      for (let m = -10; m <= 10; m++) {
        const minute = T + m * MIN;
        const model = m < 0 ? 'gpt-4o' : 'gpt-4.1';
        const bad = m > 0 ? 5 : 0;
        const rows: [string, number][] = [
          ['ok', 20 - bad],
          ['client_error', bad],
        ];
        for (const [status, n] of rows)
          if (n > 0)
            await sql.run(
              `INSERT INTO execution_minutes (minute, source, service, model, tool, status, call_outcome, count)
             VALUES (?, 'otlp', 'svc', ?, 'lookup', ?, 'valid', ?)`,
              [minute, model, status, n],
            );
      }
      const attribute = alertAttributor(sql, config);
      const cause = causeOf('execution_error_rate', { statuses: ['client_error'] }, { service: 'svc', tool: 'lookup' });
      const a = await attribute(cause!, T + 5 * MIN, T + 10 * MIN);
      const l = a.likely_change!;
      expect(l.change).toMatchObject({ kind: 'model', from: 'gpt-4o', to: 'gpt-4.1' });
      // Windows of 10 minutes each side of the switch's minute, bounded by now.
      expect([l.before.calls, l.before.failures, l.after.calls, l.after.failures]).toEqual([200, 0, 200, 50]);
      expect(l.shareOnNew).toBe(1);
      expect(l.text).toContain('client_error executions of lookup 0.0 % before → 25.0 % after (n 200 / 200');
    },
  );

  it.skipIf(engine.skip)('drift alert: the prompt change, on the tool’s share of the calls', async () => {
    const sql = await open();
    await event(sql, 'prompt', 'p1', 'p2');
    for (let m = -10; m <= 10; m++) {
      const minute = T + m * MIN;
      // refund's share of the calls: 10 % before, 50 % after; outcomes do not matter for a share.
      const rows: [string, string, number][] =
        m > 0
          ? [
              ['refund', 'valid', 8],
              ['refund', 'SchemaMismatch', 2],
              ['lookup', 'valid', 10],
            ]
          : [
              ['refund', 'valid', 2],
              ['lookup', 'valid', 18],
            ];
      for (const [tool, outcome, n] of rows)
        await sql.run(
          `INSERT INTO call_minutes (minute, source, service, model, tool, outcome, reason, count)
           VALUES (?, 'otlp', 'svc', 'gpt-4o', ?, ?, '', ?)`,
          [minute, tool, outcome, n],
        );
    }
    const shifts = [{ tool: 'refund', before: 0.1, after: 0.5 }];
    const a = await alertAttributor(sql, config)(
      causeOf('drift', {}, { service: 'svc' }, { shifts })!,
      T + 5 * MIN,
      T + 10 * MIN,
    );
    const l = a.likely_change!;
    expect(l.change.kind).toBe('prompt');
    expect([l.before.calls, l.before.failures, l.after.calls, l.after.failures]).toEqual([200, 20, 200, 100]);
    expect(l.shareOnNew).toBeNull();
    expect(l.text).toContain("refund's share of the calls 10.0 % before → 50.0 % after");
  });

  it.skipIf(engine.skip)('an alert of no single service is said not to be attributable', async () => {
    const sql = await open();
    const a = await alertAttributor(sql, config)(causeOf('error_rate', {}, { tool: 't' })!, T, T);
    expect(a).toMatchObject({ likely_change: null, candidates: [] });
    expect(a.text).toMatch(/^not attributed: the alert is not of one service/);
  });
});
