/**
 * The execution alert kinds on the real app, fed by the real OpenTelemetry exporter, evaluated by the
 * real evaluator: execution_error_rate fires per service above its threshold for the statuses it
 * follows and resolves when the window moves on; error_rate with include_execution follows the
 * combined tool-call error rate — a call that failed its schema check and then failed downstream
 * counted once, executed calls nobody could check in the denominator — where the structural rule
 * stays quiet.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { downstreamTurn, type PlannedCall } from '../helpers/downstream-agent.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient } from '../helpers/otel.js';

let tw: Harness | undefined;
afterEach(async () => {
  await tw?.close();
  tw = undefined;
});

const valid = '{"city":"Oslo"}';
const calls = (n: number, make: (i: number) => Omit<PlannedCall, 'id' | 'durationMs'>, prefix: string): PlannedCall[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, durationMs: 10, ...make(i) }));

async function send(service: string, planned: PlannedCall[]): Promise<void> {
  const client = otelClient(tw!.url, { service, batchSize: 256 });
  await downstreamTurn(client, { model: 'gpt-4o', calls: planned, t0: Date.now() - 30_000 });
  await client.shutdown();
}

describe('execution_error_rate (real evaluator)', () => {
  it('fires per service for the statuses it follows, and resolves when the window moves on', async () => {
    tw = await startToolwatch({
      config: {
        alerts: {
          rules: [
            { name: 'downstream-rejects', kind: 'execution_error_rate' }, // 5m, 1 %, min_calls 20, client_error
            { name: 'tool-down', kind: 'execution_error_rate', statuses: ['server_error'], threshold: 0.1 },
          ],
        },
      },
    });
    // checkout: 25 executions, 3 refused (404) → 12 %; search: 25 executions, 5 timed out (503) → 20 %.
    await send(
      'checkout',
      calls(25, (i) => ({ args: valid, http: { status: i < 3 ? 404 : 200, order: 'before' } }), 'k'),
    );
    await send(
      'search',
      calls(25, (i) => ({ args: valid, http: { status: i < 5 ? 503 : 200, order: 'same' } }), 's'),
    );
    await send(
      'tiny',
      calls(5, () => ({ args: valid, http: { status: 404, order: 'same' } }), 't'),
    ); // 100 % but 5 < min_calls
    await tw.services.pipeline.settle(Date.now() + 60_000);

    const now = Date.now();
    const first = await tw.services.alerting.evaluate(now);
    expect(first!.sent.map((s) => [s.rule, s.labels, s.status]).sort()).toEqual([
      ['downstream-rejects', { service: 'checkout' }, 'firing'],
      ['tool-down', { service: 'search' }, 'firing'],
    ]);
    const states = await tw.services.alerting.store.states();
    const checkout = states.find((s) => s.rule === 'downstream-rejects' && s.labels.service === 'checkout')!;
    expect(checkout).toMatchObject({ state: 'firing', value: 0.12, threshold: 0.01 });
    expect(checkout.summary).toBe('execution error rate 12% > 1.0% (3 of 25 executions client_error, 5m)');
    expect(checkout.details.topTools).toEqual([{ tool: 'get_weather', failed: 3, checked: 25 }]);
    // 100 % refused, but 5 executions < min_calls: never active, so no state at all.
    expect(states.find((s) => s.labels.service === 'tiny')).toBeUndefined();

    const later = await tw.services.alerting.evaluate(now + 10 * 60_000);
    expect(later!.sent.map((s) => [s.rule, s.labels, s.status]).sort()).toEqual([
      ['downstream-rejects', { service: 'checkout' }, 'resolved'],
      ['tool-down', { service: 'search' }, 'resolved'],
    ]);
  });
});

describe('error_rate with include_execution (real evaluator)', () => {
  it('follows the combined tool-call error rate, each call once, where the structural rate stays under the threshold', async () => {
    tw = await startToolwatch({
      config: {
        alerts: {
          rules: [
            { name: 'structural', kind: 'error_rate', threshold: 0.1 },
            { name: 'combined', kind: 'error_rate', threshold: 0.1, include_execution: true },
          ],
        },
      },
    });
    const planned: PlannedCall[] = [
      ...calls(20, () => ({ args: valid, http: { status: 200, order: 'same' } }), 'ok'),
      // Failed the schema check and then downstream: one failure, not two.
      ...calls(2, () => ({ args: '{"city":1}', http: { status: 400, order: 'same' } }), 'both'),
      // Passed the check, refused downstream.
      ...calls(3, () => ({ args: valid, http: { status: 422, order: 'before' } }), 'down'),
      // Known from their tool spans alone: unvalidated (no schema), but the downstream judged them.
      ...calls(
        4,
        (i) => ({ args: valid, noProposal: true, http: { status: i < 2 ? 404 : 200, order: 'after' } }),
        'blind',
      ),
      // A server error is not a wrong call: not in the default statuses.
      ...calls(1, () => ({ args: valid, http: { status: 503, order: 'same' } }), 'down5'),
    ];
    await send('shop', planned);
    await tw.services.pipeline.settle(Date.now() + 60_000);

    const now = Date.now();
    const first = await tw.services.alerting.evaluate(now);
    expect(first!.sent.map((s) => [s.rule, s.labels, s.status])).toEqual([['combined', { service: 'shop' }, 'firing']]);
    const states = await tw.services.alerting.store.states();
    // The structural rule stays under its threshold: 2 failed of 26 checked (20 + 2 + 3 + 1).
    expect(states.find((s) => s.rule === 'structural')).toBeUndefined();
    const stats = (await tw.app.inject('/api/stats?window=5m&service=shop')).json() as {
      tools: { errorRate: number }[];
    };
    expect(stats.tools.map((t) => t.errorRate)).toEqual([2 / 26]);
    const combined = states.find((s) => s.rule === 'combined')!;
    // Numerator 2 + 3 + 2 = 7; denominator 26 checked + 4 executed unvalidated = 30.
    expect(combined.value).toBeCloseTo(7 / 30, 12);
    expect(combined.summary).toBe(
      'tool-call error rate 23.3% > 10% (7 of 30 calls: 2 failed the check, 5 more client_error downstream, 5m)',
    );
    expect(combined.details).toMatchObject({ checked: 30, failed: 2, downstreamFailed: 5, statuses: ['client_error'] });

    const later = await tw.services.alerting.evaluate(now + 10 * 60_000);
    expect(later!.sent.map((s) => [s.rule, s.status])).toEqual([['combined', 'resolved']]);
  });
});
