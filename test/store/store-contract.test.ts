/**
 * One contract, two stores: everything here runs against SQLite and PostgreSQL alike, so the
 * replicated deployment behaves as the embedded one does. PostgreSQL comes from
 * test/global-setup.ts (a throwaway cluster, or TOOLWATCH_TEST_PG_URL); without one these tests
 * fail, unless TOOLWATCH_SKIP_PG=1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pruneTrajectories, trajectoryExtension, trajectoryStats } from '../../src/efficiency/store.js';
import type { CompletedTrajectory } from '../../src/efficiency/tracker.js';
import { migrations } from '../../src/store/migrations/index.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import {
  emptyBatch,
  MINUTE_MS,
  minuteOf,
  type CallAggregate,
  type ExecutionAggregate,
  type FailureDrop,
  type FailureRecord,
  type PendingRow,
  type Store,
  type WriteBatch,
} from '../../src/store/store.js';
import { startToolwatch } from '../helpers/harness.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';

type Row = Record<string, unknown>;

/** One empty database (file or PostgreSQL database) that stores can be opened on, several times. */
interface Target {
  open(): Promise<Store>;
  /** All rows of a table, numbers as numbers, in a stable order. */
  rows(store: Store, table: string, orderBy: string): Promise<Row[]>;
  dispose(): Promise<void>;
}

interface Kind {
  target(): Promise<Target>;
  /**
   * Failure records the database refuses, so the batch carrying one cannot commit. NaN in an
   * INTEGER/BIGINT column fails on both (SQLite stores NaN as NULL → NOT NULL; PostgreSQL rejects
   * "NaN" as bigint input). A NUL character fails on PostgreSQL only: its TEXT cannot hold U+0000,
   * while SQLite stores it faithfully, so that case has nothing to reject on SQLite.
   */
  poisons: Record<string, (f: FailureRecord) => FailureRecord>;
  skip: boolean;
}

const numeric = (r: Row): Row =>
  Object.fromEntries(
    Object.entries(r).map(([k, v]) => [
      k,
      typeof v === 'string' && /^(count|dropped|minute|time_ms|id|version)$/.test(k) ? Number(v) : v,
    ]),
  );

const kinds: [string, Kind][] = [
  [
    'sqlite',
    {
      skip: false,
      poisons: { 'NaN time': (f) => ({ ...f, timeMs: Number.NaN }) },
      async target() {
        const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-store-'));
        const file = path.join(dir, 'toolwatch.db');
        return {
          async open() {
            return new SqliteStore({ path: file, synchronous: 'NORMAL' });
          },
          async rows(store, table, orderBy) {
            return ((store as SqliteStore).db.prepare(`SELECT * FROM ${table} ORDER BY ${orderBy}`).all() as Row[]).map(
              numeric,
            );
          },
          async dispose() {
            rmSync(dir, { recursive: true, force: true });
          },
        };
      },
    },
  ],
  [
    'postgres',
    {
      skip: pgServer().skip,
      poisons: {
        'NaN time': (f) => ({ ...f, timeMs: Number.NaN }),
        'NUL in text': (f) => ({ ...f, message: 'bad \u0000 byte' }),
      },
      async target() {
        const url = await freshDatabase();
        return {
          async open() {
            return PostgresStore.open(url);
          },
          async rows(store, table, orderBy) {
            const res = await (store as PostgresStore).pool.query(`SELECT * FROM ${table} ORDER BY ${orderBy}`);
            return res.rows.map(numeric);
          },
          async dispose() {
            await dropDatabase(url);
          },
        };
      },
    },
  ],
];

const T0 = minuteOf(Date.UTC(2025, 0, 15, 12, 0));

function call(over: Partial<CallAggregate> = {}): CallAggregate {
  return {
    minute: T0,
    source: 'otlp',
    service: 'svc',
    model: 'gpt-x',
    tool: 'search',
    outcome: 'valid',
    reason: '',
    count: 1,
    ...over,
  };
}
function exec(over: Partial<ExecutionAggregate> = {}): ExecutionAggregate {
  return {
    minute: T0,
    source: 'otlp',
    service: 'svc',
    model: 'gpt-x',
    tool: 'search',
    status: 'ok',
    callOutcome: 'valid',
    count: 1,
    ...over,
  };
}
function drop(over: Partial<FailureDrop> = {}): FailureDrop {
  return { minute: T0, service: 'svc', tool: 'search', dropped: 1, ...over };
}
function failure(over: Partial<FailureRecord> = {}): FailureRecord {
  return {
    timeMs: T0 + 1234,
    source: 'otlp',
    service: 'svc',
    model: 'gpt-x',
    tool: 'search',
    name: 'search',
    outcome: 'SchemaMismatch',
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    errors: [],
    message: '',
    ...over,
  };
}
function pend(traceId: string, callKey: string, dueMs: number, payload = '{}', owner = 'p1'): PendingRow {
  return { traceId, callKey, dueMs, payload, owner };
}
function batch(over: Partial<WriteBatch> = {}): WriteBatch {
  return { ...emptyBatch(), ...over };
}

describe.each(kinds)('store contract: %s', (kindName, kind) => {
  describe.skipIf(kind.skip)(kindName, () => {
    let target: Target;
    let store: Store;
    const extra: Store[] = [];

    beforeEach(async () => {
      target = await kind.target();
      store = await target.open();
    });
    afterEach(async () => {
      for (const s of extra.splice(0)) await s.close();
      await store.close();
      await target.dispose();
    });
    const another = async (): Promise<Store> => {
      const s = await target.open();
      extra.push(s);
      return s;
    };

    it('reports its kind and answers ping', async () => {
      expect(store.kind).toBe(kindName);
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('merges aggregates by key across writes and within a batch', async () => {
      await store.write(
        batch({
          callAggregates: [
            call({ count: 2 }),
            call({ outcome: 'UnknownName', tool: '_unknown', count: 1 }),
            call({ count: 1 }),
          ],
          executionAggregates: [
            exec({ count: 4 }),
            exec({ status: 'client_error', count: 1 }),
            exec({ status: 'client_error', callOutcome: 'SchemaMismatch', count: 2 }),
          ],
          failureDrops: [drop({ dropped: 3 })],
        }),
      );
      await store.write(
        batch({
          callAggregates: [call({ count: 3 }), call({ minute: T0 + MINUTE_MS, count: 7 })],
          executionAggregates: [exec({ count: 1 })],
          failureDrops: [drop({ dropped: 2 }), drop({ tool: 'fetch', dropped: 1 })],
        }),
      );

      expect(await target.rows(store, 'call_minutes', 'minute, tool')).toEqual([
        {
          minute: T0,
          source: 'otlp',
          service: 'svc',
          model: 'gpt-x',
          tool: '_unknown',
          outcome: 'UnknownName',
          reason: '',
          count: 1,
        },
        {
          minute: T0,
          source: 'otlp',
          service: 'svc',
          model: 'gpt-x',
          tool: 'search',
          outcome: 'valid',
          reason: '',
          count: 6,
        },
        {
          minute: T0 + MINUTE_MS,
          source: 'otlp',
          service: 'svc',
          model: 'gpt-x',
          tool: 'search',
          outcome: 'valid',
          reason: '',
          count: 7,
        },
      ]);
      const ex = { minute: T0, source: 'otlp', service: 'svc', model: 'gpt-x', tool: 'search' };
      expect(await target.rows(store, 'execution_minutes', 'status, call_outcome')).toEqual([
        { ...ex, status: 'client_error', call_outcome: 'SchemaMismatch', count: 2 },
        { ...ex, status: 'client_error', call_outcome: 'valid', count: 1 },
        { ...ex, status: 'ok', call_outcome: 'valid', count: 5 },
      ]);
      expect(await store.executionCounts({ sinceMs: T0 })).toEqual([
        {
          service: 'svc',
          model: 'gpt-x',
          tool: 'search',
          status: 'client_error',
          callOutcome: 'SchemaMismatch',
          count: 2,
        },
        { service: 'svc', model: 'gpt-x', tool: 'search', status: 'client_error', callOutcome: 'valid', count: 1 },
        { service: 'svc', model: 'gpt-x', tool: 'search', status: 'ok', callOutcome: 'valid', count: 5 },
      ]);
      expect(await store.executionCounts({ sinceMs: T0, services: ['other*'] })).toEqual([]);
      expect(await target.rows(store, 'failure_drops', 'tool')).toEqual([
        { minute: T0, service: 'svc', tool: 'fetch', dropped: 1 },
        { minute: T0, service: 'svc', tool: 'search', dropped: 5 },
      ]);
      const counts = await store.callCounts({ sinceMs: T0 });
      expect(counts).toEqual([
        { service: 'svc', model: 'gpt-x', tool: '_unknown', outcome: 'UnknownName', count: 1 },
        { service: 'svc', model: 'gpt-x', tool: 'search', outcome: 'valid', count: 13 },
      ]);
      expect(typeof counts[0]!.count).toBe('number');
    });

    it('round-trips failure records: errors, arguments, call id, absent fields', async () => {
      const full = failure({
        callId: 'call_abc',
        arguments: '{"q": "café ☕", "n": "x"}',
        errors: [{ instancePath: '/n', keyword: 'type', message: 'must be integer', params: { type: 'integer' } }],
        message: '',
      });
      const bare = failure({
        timeMs: T0 + 5000,
        tool: '_unknown',
        name: 'serch',
        outcome: 'UnknownName',
        model: '',
        errors: [],
        message: 'offered: search, fetch',
      });
      await store.write(batch({ failures: [full, bare] }));

      const got = await store.failures({ limit: 10 });
      expect(got).toHaveLength(2);
      // Newest (highest id) first.
      expect(got[0]!.id).toBeGreaterThan(got[1]!.id);
      expect(got.map(({ id: _id, ...rest }) => rest)).toEqual([bare, full]);
      expect(typeof got[0]!.id).toBe('number');
      expect(typeof got[0]!.timeMs).toBe('number');
      expect(got[0]).not.toHaveProperty('callId');
      expect(got[0]).not.toHaveProperty('arguments');
    });

    it('keeps an empty-string arguments value apart from absent arguments', async () => {
      await store.write(batch({ failures: [failure({ outcome: 'InvalidJson', arguments: '' })] }));
      const [f] = await store.failures({ limit: 1 });
      expect(f!.arguments).toBe('');
    });

    it('group commit: 50 concurrent writes all resolve and every count lands exactly once', async () => {
      const writes: Promise<void>[] = [];
      for (let i = 0; i < 50; i++) {
        writes.push(
          store.write(
            batch({
              callAggregates: [call({ count: 1 }), call({ tool: `t${i % 5}`, count: 2 })],
              executionAggregates: [exec({ count: 3 })],
              failures: [failure({ spanId: `span${i}` })],
              failureDrops: [drop({ dropped: 1 })],
            }),
          ),
        );
      }
      expect(store.pendingWrites()).toBe(50);
      await expect(Promise.all(writes)).resolves.toHaveLength(50);
      expect(store.pendingWrites()).toBe(0);

      const counts = await store.callCounts({ sinceMs: T0 });
      expect(counts.find((r) => r.tool === 'search')!.count).toBe(50);
      for (let t = 0; t < 5; t++) expect(counts.find((r) => r.tool === `t${t}`)!.count).toBe(20);
      expect(await target.rows(store, 'execution_minutes', 'status')).toEqual([
        {
          minute: T0,
          source: 'otlp',
          service: 'svc',
          model: 'gpt-x',
          tool: 'search',
          status: 'ok',
          call_outcome: 'valid',
          count: 150,
        },
      ]);
      expect(await target.rows(store, 'failure_drops', 'tool')).toEqual([
        { minute: T0, service: 'svc', tool: 'search', dropped: 50 },
      ]);
      const stored = await store.failures({ limit: 100 });
      expect(stored).toHaveLength(50);
      // Arrival order is id order.
      expect(stored.map((f) => f.spanId)).toEqual(Array.from({ length: 50 }, (_, i) => `span${49 - i}`));
    });

    for (const [poisonName, poison] of Object.entries(kind.poisons)) {
      it(`a batch the database rejects (${poisonName}) fails alone, atomically, and its neighbours commit`, async () => {
        const results = await Promise.allSettled(
          [0, 1, 2, 3, 4].map((i) =>
            store.write(
              batch({
                callAggregates: [call({ count: 10 ** i })],
                failures: [i === 2 ? poison(failure({ spanId: `s${i}` })) : failure({ spanId: `s${i}` })],
                pendingAdd: [pend(`t${i}`, 'k', i)],
              }),
            ),
          ),
        );
        expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
        expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(Error);
        // Nothing of the rejected batch: not its failure, not its aggregate (100).
        const [c] = await store.callCounts({ sinceMs: T0 });
        expect(c!.count).toBe(1 + 10 + 1000 + 10000);
        expect((await store.failures({ limit: 10 })).map((f) => f.spanId)).toEqual(['s4', 's3', 's1', 's0']);
        expect((await store.loadPending()).map((p) => p.traceId)).toEqual(['t0', 't1', 't3', 't4']);
        expect(store.pendingWrites()).toBe(0);
        // And the store keeps working.
        await store.write(batch({ callAggregates: [call({ count: 100 })] }));
        expect((await store.callCounts({ sinceMs: T0 }))[0]!.count).toBe(11111);
      });
    }

    it('pending calls: adds, replacements and removes apply in write order, also within one group', async () => {
      // One group: fired without awaiting in between.
      await Promise.all([
        store.write(
          batch({ pendingAdd: [pend('t1', 'a', T0 + 300), pend('t1', 'b', T0 + 100), pend('t2', 'a', T0 + 200)] }),
        ),
        store.write(batch({ pendingRemove: [{ traceId: 't1', callKey: 'b' }] })), // removes an add of the same group
        store.write(batch({ pendingAdd: [pend('t2', 'a', T0 + 250, '{"v":2}')] })), // deferred again: replaces
        // Adds then removes within one batch, as SQLite applies them: gone.
        store.write(
          batch({ pendingAdd: [pend('t3', 'x', T0 + 50)], pendingRemove: [{ traceId: 't3', callKey: 'x' }] }),
        ),
        store.write(batch({ pendingRemove: [{ traceId: 't9', callKey: 'z' }] })), // removing nothing is fine
      ]);
      // Due order.
      expect(await store.loadPending()).toEqual([pend('t2', 'a', T0 + 250, '{"v":2}'), pend('t1', 'a', T0 + 300)]);
      // Removed and re-added in one group: present, with the new row.
      await Promise.all([
        store.write(batch({ pendingRemove: [{ traceId: 't1', callKey: 'a' }] })),
        store.write(batch({ pendingAdd: [pend('t1', 'a', T0 + 10, '{"v":3}')] })),
      ]);
      expect(await store.loadPending()).toEqual([
        pend('t1', 'a', T0 + 10, '{"v":3}'),
        pend('t2', 'a', T0 + 250, '{"v":2}'),
      ]);
      // A restart reads them back.
      expect(await (await another()).loadPending()).toHaveLength(2);
      await store.write(
        batch({
          pendingRemove: [
            { traceId: 't1', callKey: 'a' },
            { traceId: 't2', callKey: 'a' },
          ],
        }),
      );
      expect(await store.loadPending()).toEqual([]);
    });

    it('settlePending: counts only the rows the owner holds, in one transaction with what it writes', async () => {
      const rows = [pend('s1', 'a', T0), pend('s1', 'b', T0), pend('s2', 'a', T0, '{}', 'p2')];
      await store.write(batch({ pendingAdd: rows }));
      const keys = [
        { traceId: 's1', callKey: 'a' },
        { traceId: 's1', callKey: 'b' },
        { traceId: 's2', callKey: 'a' }, // held by another process
        { traceId: 's3', callKey: 'a' }, // gone (its proposal arrived)
      ];
      let asked: unknown;
      const held = await store.settlePending('p1', keys, (h) => {
        asked = h;
        return batch({ callAggregates: [call({ count: h.length })] });
      });
      expect(held).toEqual(keys.slice(0, 2));
      expect(asked).toEqual(keys.slice(0, 2));
      expect((await store.callCounts({ sinceMs: T0 }))[0]!.count).toBe(2);
      expect(await store.loadPending()).toEqual([pend('s2', 'a', T0, '{}', 'p2')]);
      // Nothing held: nothing written.
      const hundred = () => batch({ callAggregates: [call({ count: 100 })] });
      expect(await store.settlePending('p1', keys, hundred)).toEqual([]);
      expect((await store.callCounts({ sinceMs: T0 }))[0]!.count).toBe(2);
      // A write that fails leaves the rows as they were.
      const poison = Object.values(kind.poisons)[0]!;
      const failing = () => batch({ failures: [poison(failure())] });
      await expect(store.settlePending('p2', keys, failing)).rejects.toBeInstanceOf(Error);
      expect(await store.loadPending()).toEqual([pend('s2', 'a', T0, '{}', 'p2')]);
    });

    it('a batch record of the dedupe journal is written with its batch, also within one group', async () => {
      await Promise.all([
        store.write(batch({ ledger: { timeMs: T0, traces: 1, body: '[1,["t",["s"],[]]]' } })),
        store.write(batch({ callAggregates: [call()] })),
        store.write(batch({ ledger: { timeMs: T0 + 1, traces: 2, body: '[1]' } })),
      ]);
      const rows = await store.sql.all<Record<string, unknown>>(
        'SELECT time_ms, traces, body FROM ledger_batches ORDER BY id',
      );
      expect(rows.map((r) => [Number(r.time_ms), Number(r.traces), r.body])).toEqual([
        [T0, 1, '[1,["t",["s"],[]]]'],
        [T0 + 1, 2, '[1]'],
      ]);
      const poison = Object.values(kind.poisons)[0]!;
      const ledger = { timeMs: T0 + 2, traces: 1, body: 'x' };
      const bad = store.write(batch({ ledger, failures: [poison(failure())] }));
      await expect(bad).rejects.toBeInstanceOf(Error);
      expect(await store.sql.all('SELECT id FROM ledger_batches')).toHaveLength(2);
    });

    it('failures(): filters by service, tool (counted or raw name), outcome, since; cursor pages newest first', async () => {
      const recs: FailureRecord[] = [
        failure({ service: 'a', tool: 'search', name: 'search', outcome: 'SchemaMismatch', timeMs: T0 + 1 }),
        failure({ service: 'a', tool: '_unknown', name: 'serch', outcome: 'UnknownName', timeMs: T0 + 2 }),
        failure({ service: 'b', tool: 'search', name: 'search', outcome: 'InvalidJson', timeMs: T0 + 3 }),
        failure({ service: 'a', tool: 'fetch', name: 'fetch', outcome: 'SchemaMismatch', timeMs: T0 + 4 }),
        failure({ service: 'b', tool: '_unknown', name: 'search_v2', outcome: 'UnknownName', timeMs: T0 + 5 }),
        failure({ service: 'a', tool: 'search', name: 'search', outcome: 'InvalidJson', timeMs: T0 + 6 }),
        failure({ service: 'a', tool: 'search', name: 'search', outcome: 'SchemaMismatch', timeMs: T0 + 7 }),
      ];
      // Two writes, so ids come from two transactions.
      await store.write(batch({ failures: recs.slice(0, 3) }));
      await store.write(batch({ failures: recs.slice(3) }));
      const times = async (q: Parameters<Store['failures']>[0]) => (await store.failures(q)).map((f) => f.timeMs - T0);

      expect(await times({ limit: 100 })).toEqual([7, 6, 5, 4, 3, 2, 1]);
      expect(await times({ limit: 100, service: 'a' })).toEqual([7, 6, 4, 2, 1]);
      expect(await times({ limit: 100, tool: 'search' })).toEqual([7, 6, 3, 1]);
      expect(await times({ limit: 100, tool: 'serch' })).toEqual([2]); // the raw name
      expect(await times({ limit: 100, tool: '_unknown' })).toEqual([5, 2]); // the counted tool
      expect(await times({ limit: 100, outcome: 'SchemaMismatch' })).toEqual([7, 4, 1]);
      expect(await times({ limit: 100, sinceMs: T0 + 4 })).toEqual([7, 6, 5, 4]);
      expect(await times({ limit: 100, service: 'a', tool: 'search', outcome: 'SchemaMismatch' })).toEqual([7, 1]);
      expect(await times({ limit: 100, service: 'nope' })).toEqual([]);

      const pages: number[][] = [];
      let cursor: number | undefined;
      for (;;) {
        const page = await store.failures({ limit: 3, ...(cursor !== undefined ? { cursor } : {}) });
        if (page.length === 0) break;
        pages.push(page.map((f) => f.timeMs - T0));
        cursor = page[page.length - 1]!.id;
      }
      expect(pages).toEqual([[7, 6, 5], [4, 3, 2], [1]]);
      // The cursor combines with filters.
      const first = await store.failures({ limit: 2, service: 'a' });
      expect(await times({ limit: 10, service: 'a', cursor: first[1]!.id })).toEqual([4, 2, 1]);
    });

    it('callCounts(): [since, until) window, sums across minutes/sources/reasons, service filter, byte order', async () => {
      await store.write(
        batch({
          callAggregates: [
            call({ minute: T0 - MINUTE_MS, count: 1000 }), // before the window
            call({ minute: T0, count: 1 }),
            call({ minute: T0, source: 'langfuse', count: 2 }),
            call({ minute: T0 + MINUTE_MS, outcome: 'unvalidated', reason: 'no_schema', count: 4 }),
            call({ minute: T0 + MINUTE_MS, outcome: 'unvalidated', reason: 'no_arguments', count: 8 }),
            call({ minute: T0 + MINUTE_MS, count: 16 }),
            call({ minute: T0 + 2 * MINUTE_MS, count: 10_000 }), // at until: excluded
            call({ minute: T0, service: 'b', count: 32 }),
            call({ minute: T0, service: 'B', count: 64 }),
            call({ minute: T0, service: 'a_x', count: 1 }),
            call({ minute: T0, service: 'aZ', count: 1 }),
            call({ minute: T0, service: 'b', model: 'm2', tool: 'a', count: 1 }),
          ],
        }),
      );
      const rows = await store.callCounts({ sinceMs: T0, untilMs: T0 + 2 * MINUTE_MS });
      // Ordered by service, tool, model, outcome in byte order (as SQLite compares TEXT).
      expect(rows).toEqual([
        { service: 'B', model: 'gpt-x', tool: 'search', outcome: 'valid', count: 64 },
        { service: 'aZ', model: 'gpt-x', tool: 'search', outcome: 'valid', count: 1 },
        { service: 'a_x', model: 'gpt-x', tool: 'search', outcome: 'valid', count: 1 },
        { service: 'b', model: 'm2', tool: 'a', outcome: 'valid', count: 1 },
        { service: 'b', model: 'gpt-x', tool: 'search', outcome: 'valid', count: 32 },
        { service: 'svc', model: 'gpt-x', tool: 'search', outcome: 'unvalidated', count: 12 },
        { service: 'svc', model: 'gpt-x', tool: 'search', outcome: 'valid', count: 19 },
      ]);
      expect(await store.callCounts({ sinceMs: T0, untilMs: T0 + 2 * MINUTE_MS, service: 'svc' })).toEqual(
        rows.slice(5),
      );
      // No until: everything from since on.
      const open = await store.callCounts({ sinceMs: T0 + MINUTE_MS, service: 'svc' });
      expect(open).toEqual([
        { service: 'svc', model: 'gpt-x', tool: 'search', outcome: 'unvalidated', count: 12 },
        { service: 'svc', model: 'gpt-x', tool: 'search', outcome: 'valid', count: 10_016 },
      ]);
      expect(await store.callCounts({ sinceMs: T0 + 10 * MINUTE_MS })).toEqual([]);
    });

    it('callSeries(): buckets of whole minutes from an origin, grouped by the dimensions asked for and outcome, first minute per bucket', async () => {
      const H = 60 * MINUTE_MS;
      const h0 = T0 - 30 * MINUTE_MS; // 11:30: the window starts mid-hour
      await store.write(
        batch({
          callAggregates: [
            call({ minute: h0 - MINUTE_MS, count: 1000 }), // before since: not read
            call({ minute: h0, count: 1 }),
            call({ minute: h0 + 5 * MINUTE_MS, source: 'langfuse', count: 2 }), // sources and reasons add up
            call({ minute: h0 + 5 * MINUTE_MS, outcome: 'unvalidated', reason: 'no_schema', count: 4 }),
            call({ minute: h0 + 5 * MINUTE_MS, outcome: 'unvalidated', reason: 'no_arguments', count: 8 }),
            call({ minute: T0 + 7 * MINUTE_MS, model: 'gpt-y', count: 16 }), // 12:07: the new model's first minute
            call({ minute: T0 + 9 * MINUTE_MS, model: 'gpt-y', outcome: 'SchemaMismatch', count: 32 }),
            call({ minute: T0 + 9 * MINUTE_MS, service: 'B', tool: 'z', count: 64 }),
            call({ minute: T0 + H, count: 10_000 }), // at until: excluded
          ],
        }),
      );
      const q = { sinceMs: h0, untilMs: T0 + H, originMs: T0 - H, stepMs: H };
      // Hour buckets from 11:00 (only minutes from 11:30 read), by service and model.
      expect(await store.callSeries({ ...q, by: ['model', 'service'] })).toEqual([
        {
          bucket: T0 - H,
          service: 'svc',
          model: 'gpt-x',
          outcome: 'unvalidated',
          count: 12,
          firstMinute: h0 + 5 * MINUTE_MS,
        },
        { bucket: T0 - H, service: 'svc', model: 'gpt-x', outcome: 'valid', count: 3, firstMinute: h0 },
        { bucket: T0, service: 'B', model: 'gpt-x', outcome: 'valid', count: 64, firstMinute: T0 + 9 * MINUTE_MS },
        {
          bucket: T0,
          service: 'svc',
          model: 'gpt-y',
          outcome: 'SchemaMismatch',
          count: 32,
          firstMinute: T0 + 9 * MINUTE_MS,
        },
        { bucket: T0, service: 'svc', model: 'gpt-y', outcome: 'valid', count: 16, firstMinute: T0 + 7 * MINUTE_MS },
      ]);
      // No dimension: per bucket and outcome only; a service filter; minute buckets.
      expect(await store.callSeries({ ...q, by: [], service: 'svc' })).toEqual([
        { bucket: T0 - H, outcome: 'unvalidated', count: 12, firstMinute: h0 + 5 * MINUTE_MS },
        { bucket: T0 - H, outcome: 'valid', count: 3, firstMinute: h0 },
        { bucket: T0, outcome: 'SchemaMismatch', count: 32, firstMinute: T0 + 9 * MINUTE_MS },
        { bucket: T0, outcome: 'valid', count: 16, firstMinute: T0 + 7 * MINUTE_MS },
      ]);
      const minutes = await store.callSeries({
        sinceMs: T0,
        untilMs: T0 + 10 * MINUTE_MS,
        originMs: T0,
        stepMs: MINUTE_MS,
        by: ['tool'],
      });
      expect(minutes.map((r) => [(r.bucket - T0) / MINUTE_MS, r.tool, r.outcome, r.count])).toEqual([
        [7, 'search', 'valid', 16],
        [9, 'search', 'SchemaMismatch', 32],
        [9, 'z', 'valid', 64],
      ]);
      await expect(store.callSeries({ ...q, stepMs: 90_000, by: [] })).rejects.toThrow(/whole number of minutes/);
    });

    it('trajectories: two replicas add to the same minute rows; medians, p90 and means per service and model', async () => {
      const t = (over: Partial<CompletedTrajectory>): CompletedTrajectory => ({
        traceId: 't',
        service: 'svc',
        model: 'gpt-x',
        endMs: T0 + 5_000,
        steps: 2,
        toolCalls: 3,
        failedCalls: 0,
        tokens: 1000,
        durationMs: 4_000,
        ...over,
      });
      const other = await another();
      await Promise.all([
        store.write(
          batch({ extensions: [trajectoryExtension([t({}), t({ toolCalls: 12, failedCalls: 2, tokens: null })])!] }),
        ),
        other.write(
          batch({
            extensions: [trajectoryExtension([t({ toolCalls: 3 }), t({ model: 'mini', toolCalls: 1, steps: 1 })])!],
          }),
        ),
      ]);
      await store.write(
        batch({ extensions: [trajectoryExtension([t({ endMs: T0 + 10 * MINUTE_MS, toolCalls: 94 })])!] }),
      );
      const got = await trajectoryStats(store.sql, { sinceMs: T0, untilMs: T0 + MINUTE_MS });
      expect(
        got.models.map((g) => [
          g.model,
          g.stats.trajectories,
          g.stats.toolCalls,
          g.stats.failedCalls.mean,
          g.stats.tokens,
        ]),
      ).toEqual([
        ['gpt-x', 3, { median: 3, p90: 12, mean: 6 }, 2 / 3, { median: 1000, p90: 1000, mean: 1000, trajectories: 2 }],
        ['mini', 1, { median: 1, p90: 1, mean: 1 }, 0, { median: 1000, p90: 1000, mean: 1000, trajectories: 1 }],
      ]);
      expect(
        got.services.map((g) => [g.service, g.stats.trajectories, g.stats.steps, g.stats.durationSeconds]),
      ).toEqual([
        // 4000 ms lies in the bucket up to 4200 ms: the median is that bucket's upper bound, the mean exact.
        ['svc', 4, { median: 2, p90: 2, mean: 1.75 }, { median: 4.2, p90: 4.2, mean: 4 }],
      ]);
      expect(
        (await trajectoryStats(store.sql, { sinceMs: T0, untilMs: T0 + MINUTE_MS, services: ['other'] })).models,
      ).toEqual([]);
      expect(await pruneTrajectories(store.sql, T0 + MINUTE_MS)).toBeGreaterThan(0);
      expect(
        (await trajectoryStats(store.sql, { sinceMs: 0, untilMs: T0 + 60 * MINUTE_MS })).services.map(
          (g) => g.stats.toolCalls.median,
        ),
      ).toEqual([94]);
    });

    it('prune() removes rows older than the cutoff from every table and counts them', async () => {
      const old = T0 - 10 * MINUTE_MS;
      await store.write(
        batch({
          callAggregates: [call({ minute: old }), call({ minute: old, tool: 'x' }), call()],
          executionAggregates: [exec({ minute: old }), exec()],
          failures: [failure({ timeMs: old + 5 }), failure({ timeMs: T0 - 1 }), failure({ timeMs: T0 })],
          failureDrops: [drop({ minute: old }), drop()],
        }),
      );
      expect(await store.prune(T0)).toBe(2 + 1 + 2 + 1);
      expect(await store.prune(T0)).toBe(0);
      expect((await target.rows(store, 'call_minutes', 'tool')).map((r) => r.minute)).toEqual([T0]);
      expect((await target.rows(store, 'execution_minutes', 'status')).map((r) => r.minute)).toEqual([T0]);
      expect((await target.rows(store, 'failure_drops', 'tool')).map((r) => r.minute)).toEqual([T0]);
      expect((await store.failures({ limit: 10 })).map((f) => f.timeMs)).toEqual([T0]);
    });

    it('runExclusive(): one holder per name; released after fn, also when fn throws', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const first = store.runExclusive('judge', async () => {
        await gate;
        return 42;
      });
      // Let the first caller take the lock (a round trip on PostgreSQL).
      await new Promise((r) => setTimeout(r, 100));
      expect(await store.runExclusive('judge', async () => 'second')).toEqual({ ran: false });
      expect(await store.runExclusive('alerts', async () => 'other name')).toEqual({ ran: true, value: 'other name' });
      release();
      expect(await first).toEqual({ ran: true, value: 42 });
      expect(await store.runExclusive('judge', async () => 'again')).toEqual({ ran: true, value: 'again' });

      await expect(store.runExclusive('judge', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      expect(await store.runExclusive('judge', async () => 'after a throw')).toEqual({
        ran: true,
        value: 'after a throw',
      });
    });

    if (kindName === 'postgres') {
      it('runExclusive(): another replica (a second PostgresStore) sees the lock held', async () => {
        const replica = await another();
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let entered!: () => void;
        const inside = new Promise<void>((r) => (entered = r));
        const leader = store.runExclusive('judge', async () => {
          entered();
          await gate;
          return 'leader';
        });
        await inside;
        expect(await replica.runExclusive('judge', async () => 'follower')).toEqual({ ran: false });
        release();
        expect(await leader).toEqual({ ran: true, value: 'leader' });
        expect(await replica.runExclusive('judge', async () => 'follower')).toEqual({ ran: true, value: 'follower' });
        // And the lock went back with its connection: the first store can take it again.
        expect(await store.runExclusive('judge', async () => 'back')).toEqual({ ran: true, value: 'back' });
      });

      it('open() rejects, and leaves nothing running, when the server cannot be reached', async () => {
        await expect(PostgresStore.open('postgres://postgres@127.0.0.1:1/nowhere')).rejects.toThrow(
          /ECONNREFUSED|connect/,
        );
      });

      it('when the database goes away, every write of the group rejects and ping fails', async () => {
        const server = new pg.Client({ connectionString: pgServer().url });
        await server.connect();
        try {
          const db = decodeURIComponent(
            new URL(
              ((store as PostgresStore).pool.options as { connectionString: string }).connectionString,
            ).pathname.slice(1),
          );
          await server.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
            [db],
          );
          await server.query(`ALTER DATABASE "${db}" WITH ALLOW_CONNECTIONS false`);
          await server.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [db]);
          const results = await Promise.allSettled(
            [0, 1, 2].map(() => store.write(batch({ callAggregates: [call()] }))),
          );
          expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
          expect(store.pendingWrites()).toBe(0);
          await expect(store.ping()).rejects.toThrow();
          await server.query(`ALTER DATABASE "${db}" WITH ALLOW_CONNECTIONS true`);
          // Back: the pool reconnects.
          await store.write(batch({ callAggregates: [call({ count: 2 })] }));
          expect((await store.callCounts({ sinceMs: T0 }))[0]!.count).toBe(2);
        } finally {
          await server.end();
        }
      });

      it('replicas starting at once apply each migration once', async () => {
        const t = await kind.target();
        try {
          const stores = await Promise.all([t.open(), t.open(), t.open(), t.open()]);
          try {
            expect(await t.rows(stores[0]!, 'schema_migrations', 'version')).toEqual(
              migrations.map((m) => expect.objectContaining({ version: m.version, name: m.name })),
            );
          } finally {
            for (const s of stores) await s.close();
          }
        } finally {
          await t.dispose();
        }
      });
    }

    it('migrations are idempotent: opening the same database again keeps schema and data', async () => {
      await store.write(batch({ callAggregates: [call({ count: 5 })], failures: [failure()] }));
      const again = await another();
      expect(await again.callCounts({ sinceMs: T0 })).toEqual([
        { service: 'svc', model: 'gpt-x', tool: 'search', outcome: 'valid', count: 5 },
      ]);
      expect(await again.failures({ limit: 10 })).toHaveLength(1);
      expect(await target.rows(again, 'schema_migrations', 'version')).toEqual(
        migrations.map((m) => expect.objectContaining({ version: m.version, name: m.name })),
      );
    });

    it('close() commits accepted writes; writes after close reject', async () => {
      const pending = store.write(batch({ callAggregates: [call({ count: 9 })] }));
      await store.close();
      await expect(pending).resolves.toBeUndefined();
      await expect(store.write(batch({ callAggregates: [call()] }))).rejects.toThrow(/closed/);
      store = await target.open(); // afterEach closes it
      expect((await store.callCounts({ sinceMs: T0 }))[0]!.count).toBe(9);
    });
  });
});

describe.skipIf(pgServer().skip)('the app on PostgreSQL', () => {
  const urls: string[] = [];
  afterAll(async () => {
    for (const u of urls) await dropDatabase(u);
  });

  it('starts, migrates and reports store postgres on /readyz', async () => {
    const url = await freshDatabase();
    urls.push(url);
    const h = await startToolwatch({ config: { database_url: url } });
    try {
      expect(h.services.store.kind).toBe('postgres');
      const res = await fetch(`${h.url}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ready', store: 'postgres' });
    } finally {
      await h.close();
    }
  });
});
