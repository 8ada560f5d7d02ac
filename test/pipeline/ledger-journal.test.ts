/**
 * The dedupe journal (src/pipeline/ledger-journal.ts): a batch's record says what it took — spans,
 * and calls in their state after it — and a new ledger loaded from the records behaves as the old
 * one did for everything that arrives later; loading and the table are bounded by max_traces and the
 * TTL (measured up to the newest record, so time a process was down does not age the memory).
 */
import { describe, expect, it } from 'vitest';
import { CALL, h64, hashKey, SPAN, TRACE } from '../../src/pipeline/dedupe-hash.js';
import { Ledger, type CallEntry, type RememberedTrace } from '../../src/pipeline/ledger.js';
import { decodeRecord, journalRecord, LedgerJournal } from '../../src/pipeline/ledger-journal.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { emptyBatch, type LedgerRecord } from '../../src/store/store.js';
import { OUTCOMES } from '../../src/model.js';

const opts = { maxTraces: 100, maxCallsPerTrace: 10, traceTtlMs: 60_000 };
const entry = (over: Partial<CallEntry> = {}): CallEntry => ({
  name: 'f',
  argsRaw: '{"a":1}',
  hasId: true,
  executed: false,
  fromExecution: false,
  ...over,
});

async function withStore(fn: (store: SqliteStore) => Promise<void>): Promise<void> {
  const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

const hash = (domain: number, a: string, b?: string): number[] => {
  hashKey(domain, a, b);
  return [h64[0]!, h64[1]!];
};
/** A decoded trace in readable form: its calls' key hashes matched back to the keys the test knows. */
const readable = (t: RememberedTrace, keys: string[]) => ({
  trace: [t.hi, t.lo],
  spans: t.spans,
  overflowed: t.overflowed,
  calls: Array.from({ length: t.calls.length / 4 }, (_, i) => {
    const c = t.calls.slice(i * 4, i * 4 + 4);
    const key = keys.find((k) => hash(CALL, k).join() === `${c[0]},${c[1]}`);
    const state = c[2]!;
    const outcome = (state >>> 4) & 7;
    return [key, state & 15, outcome ? [outcome, t.models[state >>> 7]] : undefined];
  }),
});
const HAS_ID = 1;
const EXECUTED = 2;
const FROM_EXECUTION = 4;

const write = (store: SqliteStore, ledger: LedgerRecord | undefined) =>
  store.write({ ...emptyBatch(), ...(ledger ? { ledger } : {}) });

describe('dedupe journal records', () => {
  it('records the spans a batch claimed and the calls it added or changed, in their state after it', () => {
    const ledger = new Ledger(opts);
    const first = ledger.begin(0);
    first.claimSpan('t1', 's1');
    first.add('t1', 'id:c1', entry());
    first.add('t1', 'id:c2', entry({ name: 'g', executed: true, fromExecution: true }));
    first.commit();
    const keys = ['id:c1', 'id:c2'];
    expect(decodeRecord(journalRecord(first.taken(), 0)!.body)!.map((t) => readable(t, keys))).toEqual([
      {
        trace: hash(TRACE, 't1'),
        spans: hash(SPAN, 's1', ''),
        overflowed: false,
        calls: [
          ['id:c1', HAS_ID, undefined],
          ['id:c2', HAS_ID | EXECUTED | FROM_EXECUTION, undefined],
        ],
      },
    ]);
    // A later batch: a resent span (not taken), the tool span of c1, the proposal of c2.
    const second = ledger.begin(1);
    expect(second.claimSpan('t1', 's1')).toBe(false);
    second.claimSpan('t1', 's2');
    second.markExecuted(second.get('t1', 'id:c1')!);
    second.claimOrphan(second.findUnpaired('t1', 'g', undefined, (e) => e.fromExecution)!);
    second.commit();
    const rec = journalRecord(second.taken(), 1)!;
    expect(rec.traces).toBe(1);
    expect(decodeRecord(rec.body)!.map((t) => readable(t, keys))).toEqual([
      {
        trace: hash(TRACE, 't1'),
        spans: hash(SPAN, 's2', ''),
        overflowed: false,
        calls: [
          ['id:c1', HAS_ID | EXECUTED, undefined],
          ['id:c2', HAS_ID | EXECUTED, undefined],
        ],
      },
    ]);
    // A batch that took nothing has no record.
    expect(journalRecord(ledger.begin(2).taken(), 2)).toBeUndefined();
  });

  it('keeps the outcome and model a call was counted with: from the batch that counts it, or from its entry', () => {
    const ledger = new Ledger(opts);
    const txn = ledger.begin(0);
    const counted = entry();
    txn.add('t1', 'id:c1', counted);
    txn.add('t1', 'id:c2', entry({ name: 'g', executed: true, fromExecution: true })); // waits: not counted yet
    txn.add('t2', 'id:c3', entry({ name: 'h', outcome: 'valid', model: 'm-1' })); // counted by an earlier batch
    txn.commit();
    const rec = journalRecord(txn.taken(), 0, (e) => (e === counted ? ['SchemaMismatch', 'm-2'] : undefined))!;
    const keys = ['id:c1', 'id:c2', 'id:c3'];
    const sm = OUTCOMES.indexOf('SchemaMismatch') + 1;
    const valid = OUTCOMES.indexOf('valid') + 1;
    expect(decodeRecord(rec.body)!.map((t) => readable(t, keys).calls)).toEqual([
      [
        ['id:c1', HAS_ID, [sm, 'm-2']],
        ['id:c2', HAS_ID | EXECUTED | FROM_EXECUTION, undefined],
      ],
      [['id:c3', HAS_ID, [valid, 'm-1']]],
    ]);
    // A new ledger loaded from it counts c3's execution with its outcome and model at once.
    const next = new Ledger(opts);
    for (const t of decodeRecord(rec.body)!) next.remember(t, 0);
    expect(next.begin(0).get('t2', 'id:c3')).toMatchObject({ outcome: 'valid', model: 'm-1', hasId: true });
    // Version 1 and 2 records (ids and keys as text, written before the memory kept hashes) are still read.
    const [v1] = decodeRecord('[1,["t",["s"],["id:c","f",3]]]')!;
    expect(readable(v1!, ['id:c'])).toEqual({
      trace: hash(TRACE, 't'),
      spans: hash(SPAN, 's', '\u0000*'),
      overflowed: false,
      calls: [['id:c', HAS_ID | EXECUTED, undefined]],
    });
    const [v2] = decodeRecord(`[2,["m"],["t",["s\\u0000svc"],["id:c","f",${1 | (valid << 4)},"!overflow","",0]]]`)!;
    expect(readable(v2!, ['id:c'])).toEqual({
      trace: hash(TRACE, 't'),
      spans: hash(SPAN, 's', 'svc'),
      overflowed: true,
      calls: [['id:c', HAS_ID, [valid, 'm']]],
    });
  });

  it('spans are remembered per service; a bare span id of an older record still marks a resend', () => {
    const ledger = new Ledger(opts);
    for (const t of decodeRecord('[1,["t1",["s-old"],[]]]')!) ledger.remember(t, 0);
    const txn = ledger.begin(0);
    expect(txn.claimSpan('t1', 's-old', 'svc')).toBe(false);
    expect(txn.claimSpan('t1', 's-new', 'team-a')).toBe(true);
    expect(txn.claimSpan('t1', 's-new', 'team-b')).toBe(true);
    expect(txn.claimSpan('t1', 's-new', 'team-b')).toBe(false);
    txn.commit();
  });

  it.each([
    '',
    '{',
    '[2]',
    '[1,["t",["s"]]]',
    '[1,["t",["s"],["k","n"]]]',
    '[1,["t",[1],[]]]',
    '[1,["t",[],["k",2,0]]]',
    '[2,[],["t",[],["k","n",16]]]',
    '[2,["m"],["t",[],["k","n",112]]]',
    '[2,"m",["t",[],[]]]',
    '[3,[],"AAAA"]',
    '[3,[],"AQAAAAIAAAABAAAAAAAAAAAAAAA="]',
    '[3,[],123]',
    '[1,["t",[],["k","n",-1]]]',
  ])('a record this version cannot read is skipped: %s', (body) => expect(decodeRecord(body)).toBeUndefined());
});

describe('dedupe journal in the store', () => {
  it('a new ledger loaded from the records recognises the spans and pairs with the calls', async () => {
    await withStore(async (store) => {
      const before = new Ledger(opts);
      const txn = before.begin(1_000);
      txn.claimSpan('t1', 's1');
      txn.add('t1', 'id:c1', entry());
      txn.add('t1', 'pos:s1:1', entry({ name: 'h', hasId: false }));
      txn.commit();
      await write(store, journalRecord(txn.taken(), 1_000));
      await write(store, { timeMs: 1_001, traces: 1, body: 'not a record' });

      const after = new Ledger(opts);
      expect(await new LedgerJournal(store.sql, opts).load(after, 2_000)).toEqual({
        records: 1,
        traces: 1,
        unreadable: 1,
      });
      const next = after.begin(2_000);
      expect(next.claimSpan('t1', 's1')).toBe(false);
      expect(next.get('t1', 'id:c1')).toMatchObject({ hasId: true, executed: false, fromExecution: false });
      // Other arguments than the call's: an id-less sighting still pairs by name (its hash).
      expect(next.findUnpaired('t1', 'h', '{"x":2}', (e) => !e.executed)).toMatchObject({
        hasId: false,
        argsRaw: undefined,
      });
      expect(next.findUnpaired('t1', 'nope', '{"x":2}', (e) => !e.executed)).toBeUndefined();
    });
  });

  it('loads at most max_traces traces, newest first, none idle for longer than the TTL before the newest', async () => {
    await withStore(async (store) => {
      const small = { ...opts, maxTraces: 3 };
      const rec = (traceId: string, timeMs: number) => {
        const l = new Ledger(opts);
        const t = l.begin(timeMs);
        t.claimSpan(traceId, 's');
        return journalRecord(t.taken(), timeMs);
      };
      // Long before the rest (beyond the TTL), then five traces; the process was down for a day after.
      await write(store, rec('ancient', 0));
      for (let i = 0; i < 5; i++) await write(store, rec(`t${i}`, 100_000 + i));
      const ledger = new Ledger(small);
      const day = 86_400_000;
      expect(await new LedgerJournal(store.sql, small).load(ledger, 100_004 + day)).toMatchObject({ traces: 3 });
      const txn = ledger.begin(100_004 + day); // the downtime did not age them out
      expect(['t4', 't3', 't2'].map((t) => txn.claimSpan(t, 's'))).toEqual([false, false, false]);
      expect(['t1', 'ancient'].map((t) => txn.claimSpan(t, 's'))).toEqual([true, true]);
    });
  });

  it('prunes records older than the TTL before the newest, and past twice max_traces traces', async () => {
    await withStore(async (store) => {
      const small = { ...opts, maxTraces: 2 };
      const rec = (timeMs: number, traces: number): LedgerRecord => ({ timeMs, traces, body: '[1]' });
      await write(store, rec(0, 1));
      for (let i = 0; i < 6; i++) await write(store, rec(100_000 + i, 1));
      expect(await new LedgerJournal(store.sql, small).prune()).toBe(3);
      const left = await store.sql.all<{ time_ms: number }>('SELECT time_ms FROM ledger_batches ORDER BY id');
      expect(left.map((r) => r.time_ms)).toEqual([100_002, 100_003, 100_004, 100_005]);
      await new LedgerJournal(store.sql, small).prune();
      expect(await store.sql.all('SELECT id FROM ledger_batches')).toHaveLength(4);
    });
  });
});
