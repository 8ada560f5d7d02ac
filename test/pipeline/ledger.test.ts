import { describe, expect, it } from 'vitest';
import { LabelCap, OTHER } from '../../src/metrics/label-cap.js';
import { Ledger } from '../../src/pipeline/ledger.js';

describe('ledger memory is bounded', () => {
  it('forgets the least recently seen trace past max_traces', () => {
    let evicted = 0;
    const ledger = new Ledger({ maxTraces: 3, maxCallsPerTrace: 10, traceTtlMs: 3_600_000 }, () => evicted++);
    const txn = ledger.begin(0);
    for (const t of ['a', 'b', 'c']) txn.claimSpan(t, 's1');
    txn.claimSpan('a', 's2'); // touch a: b is now the oldest
    txn.claimSpan('d', 's1');
    expect(ledger.size).toBe(3);
    expect(evicted).toBe(1);
    expect(txn.claimSpan('a', 's1')).toBe(false); // still remembered
    expect(txn.claimSpan('b', 's1')).toBe(true); // forgotten, so taken again
  });

  it('forgets traces idle longer than the TTL', () => {
    const ledger = new Ledger({ maxTraces: 100, maxCallsPerTrace: 10, traceTtlMs: 1_000 });
    ledger.begin(0).claimSpan('a', 's');
    ledger.begin(500).claimSpan('b', 's');
    ledger.begin(1_200);
    expect(ledger.size).toBe(1);
  });

  it('remembers at most max_calls_per_trace calls of one trace', () => {
    const ledger = new Ledger({ maxTraces: 10, maxCallsPerTrace: 2, traceTtlMs: 3_600_000 });
    const txn = ledger.begin(0);
    for (const k of ['1', '2', '3'])
      txn.add('t', k, { name: 'f', argsRaw: undefined, hasId: true, executed: false, fromExecution: false });
    expect(txn.get('t', '2')).toBeDefined();
    expect(txn.get('t', '3')).toBeUndefined();
  });

  it('rollback undoes every change of a refused batch', () => {
    const ledger = new Ledger({ maxTraces: 10, maxCallsPerTrace: 10, traceTtlMs: 3_600_000 });
    const txn = ledger.begin(0);
    txn.claimSpan('t', 's');
    txn.add('t', 'k', { name: 'f', argsRaw: undefined, hasId: true, executed: false, fromExecution: false });
    txn.rollback();
    expect(ledger.size).toBe(0);
    expect(ledger.begin(0).claimSpan('t', 's')).toBe(true);
  });
});

describe('ledger pairing by hash', () => {
  it('an id-less sighting pairs with the call of equal arguments (whitespace aside), else the oldest by name', () => {
    const ledger = new Ledger({ maxTraces: 10, maxCallsPerTrace: 10, traceTtlMs: 3_600_000 });
    const txn = ledger.begin(0);
    for (const [k, args] of [
      ['id:1', '{"city":"Paris"}'],
      ['id:2', '{"city":"Berlin"}'],
    ] as const)
      txn.add('t', k, { name: 'weather', argsRaw: args, hasId: true, executed: false, fromExecution: false });
    txn.commit();
    const next = ledger.begin(1);
    const unexecuted = (e: { executed: boolean }) => !e.executed;
    // Python's json.dumps separators: the same arguments, re-serialised.
    const berlin = next.findUnpaired('t', 'weather', '{"city": "Berlin"}', unexecuted)!;
    next.markExecuted(berlin);
    expect(next.get('t', 'id:2')).toBe(berlin);
    // Other arguments (or another key order): the oldest of that name still unexecuted.
    expect(next.findUnpaired('t', 'weather', '{"city":"Rome"}', unexecuted)).toBe(next.get('t', 'id:1'));
    expect(next.findUnpaired('t', 'forecast', '{"city":"Paris"}', unexecuted)).toBeUndefined();
    next.commit();
  });
});

describe('label caps', () => {
  it('keeps the first N values of a label and maps the rest to _other, per label', () => {
    const overflow: string[] = [];
    const cap = new LabelCap(2, (l) => overflow.push(l));
    expect(['a', 'b', 'a', 'c', 'd'].map((v) => cap.value('tool', v))).toEqual(['a', 'b', 'a', OTHER, OTHER]);
    expect(cap.value('service', 'c')).toBe('c');
    expect(overflow).toEqual(['tool', 'tool']);
  });

  it('a budget admits at most its share of new values; admitted values are free for all', () => {
    const cap = new LabelCap(5, () => {}, 2);
    expect(['a', 'b', 'c'].map((v) => cap.value('service', v, 'team-x'))).toEqual(['a', 'b', OTHER]);
    expect(cap.value('service', 'a', 'team-y')).toBe('a'); // already admitted: costs team-y nothing
    expect(['d', 'e', 'f'].map((v) => cap.value('service', v, 'team-y'))).toEqual(['d', 'e', OTHER]);
    expect(cap.value('tool', 'g', 'team-x')).toBe('g'); // per label
    expect(cap.value('service', 'h')).toBe('h'); // unbudgeted: the shared cap alone
    expect(cap.value('service', 'i')).toBe(OTHER); // the shared cap is full
  });

  it('a span claimed by one service and then another is undone one claim at a time', () => {
    const ledger = new Ledger({ maxTraces: 10, maxCallsPerTrace: 10, traceTtlMs: 3_600_000 });
    ledger.begin(0).claimSpan('t', 's', 'a');
    const second = ledger.begin(0);
    expect(second.claimSpan('t', 's', 'b')).toBe(true);
    second.rollback();
    const third = ledger.begin(0);
    expect(third.claimSpan('t', 's', 'a')).toBe(false);
    expect(third.claimSpan('t', 's', 'b')).toBe(true);
  });
});
