/**
 * One round's reads, each done once (src/alerts/round-reads.ts): rules over the same hours read them
 * once a round, get the rows a read of their own would have given, and a new round reads again.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AlertStore } from '../../src/alerts/alert-store.js';
import { evaluateRound } from '../../src/alerts/evaluator.js';
import { onceARound } from '../../src/alerts/round-reads.js';
import { createAlerting } from '../../src/alerts/setup.js';
import { slicedCallCounts, slicedExecutionCounts } from '../../src/alerts/sliced-reads.js';
import { loadConfig } from '../../src/config.js';
import { builtinKinds } from '../../src/kinds.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import {
  emptyBatch,
  MINUTE_MS,
  type CallAggregate,
  type CallCountQuery,
  type CallCountRow,
} from '../../src/store/store.js';

const NOW = Date.UTC(2025, 5, 2, 12, 30, 10);
const HOUR = 60 * MINUTE_MS;

function row(service: string, count: number): CallCountRow {
  return { service, model: 'gpt-4o', tool: 'search', outcome: 'valid', count };
}

describe('onceARound', () => {
  it('answers a query it has answered from the first answer, a new query from the store', async () => {
    const asked: CallCountQuery[] = [];
    const read = onceARound(async (q: CallCountQuery) => (asked.push(q), [row('checkout', q.sinceMs)]));
    expect(await read({ sinceMs: 1, untilMs: 2 })).toEqual([row('checkout', 1)]);
    expect(await read({ untilMs: 2, sinceMs: 1 })).toEqual([row('checkout', 1)]);
    expect(await read({ sinceMs: 1, untilMs: 2, service: 'checkout' })).toEqual([row('checkout', 1)]);
    expect(await read({ sinceMs: 1, untilMs: 3 })).toEqual([row('checkout', 1)]);
    expect(asked).toEqual([
      { sinceMs: 1, untilMs: 2 },
      { sinceMs: 1, untilMs: 2, service: 'checkout' },
      { sinceMs: 1, untilMs: 3 },
    ]);
  });

  it('gives each caller rows of its own', async () => {
    const read = onceARound(async () => [row('checkout', 5)]);
    const first = await read({ sinceMs: 0, untilMs: 1 });
    first[0]!.count = 99;
    first.pop();
    expect(await read({ sinceMs: 0, untilMs: 1 })).toEqual([row('checkout', 5)]);
  });

  it('keeps no failed read: the next caller reads again', async () => {
    let calls = 0;
    const read = onceARound(async () => {
      calls++;
      if (calls === 1) throw new Error('database is locked');
      return [row('checkout', 1)];
    });
    await expect(read({ sinceMs: 0, untilMs: 1 })).rejects.toThrow('database is locked');
    expect(await read({ sinceMs: 0, untilMs: 1 })).toEqual([row('checkout', 1)]);
    expect(calls).toBe(2);
  });

  it('under sliced reads: a 24 h window and a 24 h baseline before the last hour share 23 hours', async () => {
    const asked: CallCountQuery[] = [];
    const read = slicedCallCounts(onceARound(async (q: CallCountQuery) => (asked.push(q), [row('a', 1)])));
    const until = NOW - (NOW % MINUTE_MS) + MINUTE_MS;
    expect(await read({ sinceMs: until - 24 * HOUR, untilMs: until })).toEqual([row('a', 24)]);
    expect(await read({ sinceMs: until - 25 * HOUR, untilMs: until - HOUR })).toEqual([row('a', 24)]);
    expect(await read({ sinceMs: until - HOUR, untilMs: until })).toEqual([row('a', 1)]);
    expect(asked).toHaveLength(25);
  });
});

describe('a round of rules over the same 24 h', () => {
  const rules = [
    { name: 'rate-24h', kind: 'error_rate', window: '24h', threshold: 0.2, by: ['service', 'tool'] },
    { name: 'drift-24h', kind: 'drift', window: '1h', baseline: '24h' },
    { name: 'rate-drift-24h', kind: 'error_rate_drift', window: '1h', baseline: '24h', by: ['service', 'tool'] },
    { name: 'burn-24h', kind: 'error_budget_burn', windows: [{ long: '24h', short: '1h', burn_rate: 1 }] },
  ];

  async function storeWithDay(): Promise<SqliteStore> {
    const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    const calls: CallAggregate[] = [];
    const last = Math.floor(NOW / MINUTE_MS) * MINUTE_MS;
    for (let m = 0; m < 26 * 60; m += 7) {
      for (const [service, tool] of [
        ['checkout', 'search'],
        ['checkout', 'refund'],
        ['søk', 'search'],
      ] as const) {
        // The last hour fails more, and its tool mix shifts: every rule has something to say.
        const failing = m < 60 && tool === 'refund' ? 6 : 1;
        const base = {
          minute: last - m * MINUTE_MS,
          source: 'otlp' as const,
          service,
          model: 'gpt-4o',
          tool,
          reason: '',
        };
        calls.push({ ...base, outcome: 'valid', count: 4 + (m % 5) });
        calls.push({ ...base, outcome: 'SchemaMismatch', count: failing });
      }
    }
    await store.write({ ...emptyBatch(), callAggregates: calls });
    return store;
  }

  it('reads each hour once and decides as the rules reading for themselves did', async () => {
    const kinds = builtinKinds();
    const config = loadConfig({ cwd: '/tmp', kinds, overrides: { alerts: { rules } } });
    const log = pino({ level: 'silent' });

    const shared = await storeWithDay();
    let sharedReads = 0;
    const read = shared.callCounts.bind(shared);
    shared.callCounts = (q) => (sharedReads++, read(q));
    const alerting = createAlerting({ config: config.alerts, kinds, store: shared, log, now: () => NOW });
    const round = await alerting.evaluate(NOW);
    await alerting.stop();
    await shared.close();

    // The same rules, every rule reading its own slices: the round as it was composed before.
    const own = await storeWithDay();
    let ownReads = 0;
    const before = await evaluateRound(
      {
        rules: [...alerting.rules],
        io: {
          callCounts: slicedCallCounts((q) => (ownReads++, own.callCounts(q))),
          executionCounts: slicedExecutionCounts((q) => own.executionCounts(q)),
        },
        alertStore: new AlertStore(own.sql),
        log,
      },
      NOW,
    );
    await own.close();

    expect(round?.errors).toEqual([]);
    expect(round?.sent.length).toBeGreaterThan(0);
    expect(round?.sent).toEqual(before.sent);
    expect(round?.states).toEqual(before.states);
    expect(ownReads).toBe(99);
    expect(sharedReads).toBe(25);
  });
});
