/**
 * The alert rules' long reads in hour slices (src/alerts/sliced-reads.ts), on both stores: the same
 * rows in the same order as one read of the whole window, and an evaluation over 24 h lets the
 * event loop run while it reads (one synchronous SQLite read held ingest for all of it).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlerting } from '../../src/alerts/setup.js';
import { slicedCallCounts, slicedExecutionCounts } from '../../src/alerts/sliced-reads.js';
import { loadConfig } from '../../src/config.js';
import { builtinKinds } from '../../src/kinds.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import {
  emptyBatch,
  MINUTE_MS,
  type CallAggregate,
  type ExecutionAggregate,
  type Store,
} from '../../src/store/store.js';
import { storeEngines } from '../helpers/engines.js';

const NOW = Date.UTC(2025, 5, 2, 12, 30, 10);
const HOUR = 60 * MINUTE_MS;
// Byte order and code-unit order differ here ('\u{1F600}' sorts before '\uFF01' in UTF-16, after it in UTF-8).
const SERVICES = ['checkout', 'Checkout', 'søk', '\u{1F600}-bot', '\uFF01-bot'];
const TOOLS = ['search', 'lookup_order', '_unknown'];

/** 26 hours of minutes, every tenth one with rows, counts that vary by minute. */
async function preload(store: Store): Promise<void> {
  const calls: CallAggregate[] = [];
  const execs: ExecutionAggregate[] = [];
  const last = Math.floor(NOW / MINUTE_MS) * MINUTE_MS;
  for (let m = 0; m < 26 * 60; m += 10) {
    const minute = last - m * MINUTE_MS;
    SERVICES.forEach((service, s) => {
      TOOLS.forEach((tool, t) => {
        const outcome = (m + s + t) % 3 === 0 ? 'SchemaMismatch' : 'valid';
        calls.push({ minute, source: 'otlp', service, model: 'gpt-4o', tool, outcome, reason: '', count: 1 + (m % 7) });
        execs.push({
          minute,
          source: 'otlp',
          service,
          model: 'gpt-4o',
          tool,
          status: (m + t) % 4 === 0 ? 'client_error' : 'ok',
          callOutcome: 'valid',
          count: 1 + (m % 5),
        });
      });
    });
  }
  await store.write({ ...emptyBatch(), callAggregates: calls, executionAggregates: execs });
}

const WINDOWS: [string, { sinceMs: number; untilMs: number; service?: string }][] = [
  ['24 h, whole hours', { sinceMs: NOW - 24 * HOUR, untilMs: NOW }],
  ['25 h 17 min, unaligned', { sinceMs: NOW - 25 * HOUR - 17 * MINUTE_MS, untilMs: NOW - 3 * MINUTE_MS }],
  ['one service over 24 h', { sinceMs: NOW - 24 * HOUR, untilMs: NOW, service: 'søk' }],
  ['30 min (one read)', { sinceMs: NOW - 30 * MINUTE_MS, untilMs: NOW }],
];

describe.each(storeEngines)('sliced alert reads on $name', (engine) => {
  let store: Store;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    if (engine.skip) return;
    ({ store, dispose } = await engine.open());
    await preload(store);
  });
  afterAll(async () => dispose?.());

  it.skipIf(engine.skip).each(WINDOWS)('call counts over %s: the rows of one read, in its order', async (_n, q) => {
    const whole = await store.callCounts(q);
    expect(whole.length).toBeGreaterThan(0);
    expect(await slicedCallCounts((x) => store.callCounts(x))(q)).toEqual(whole);
  });

  it.skipIf(engine.skip).each(WINDOWS)(
    'execution counts over %s: the rows of one read, in its order',
    async (_n, q) => {
      const whole = await store.executionCounts(q);
      expect(whole.length).toBeGreaterThan(0);
      expect(await slicedExecutionCounts((x) => store.executionCounts(x))(q)).toEqual(whole);
    },
  );
});

describe('an evaluation over 24 h', () => {
  let store: SqliteStore;
  beforeAll(async () => {
    store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
    await preload(store);
  });
  afterAll(async () => store?.close());

  it('lets the event loop run between its reads', async () => {
    const kinds = builtinKinds();
    const config = loadConfig({
      cwd: '/tmp',
      kinds,
      overrides: {
        alerts: {
          rules: [{ name: 'day', kind: 'error_rate', window: '24h', threshold: 0.1, by: ['service', 'tool'] }],
        },
      },
    });
    const alerting = createAlerting({
      config: config.alerts,
      kinds,
      store,
      log: pino({ level: 'silent' }),
      now: () => NOW,
    });
    // Counts how often the loop got to run macrotasks while the evaluation went on.
    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const round = await alerting.evaluate(NOW);
    done = true;
    expect(round?.errors).toEqual([]);
    expect(round?.states.some((s) => s.state === 'firing' || s.state === 'pending')).toBe(true);
    // 24 one-hour reads: the loop ran between them (a single read gives it no turn at all).
    expect(turns).toBeGreaterThanOrEqual(23);
    await alerting.stop();
  });
});
