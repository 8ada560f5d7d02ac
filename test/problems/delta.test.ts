/**
 * A batch's failures grouped per problem (src/problems/delta.ts) against the rules written out with
 * maps: counts per hour and model in the order they first came, the earliest, latest and each model's
 * first failure as the example slots — for a handful of problems and for more than it scans one by
 * one, and two services whose signatures share a hash kept apart.
 */
import { describe, expect, it } from 'vitest';
import { Grouper } from '../../src/problems/delta.js';
import type { Signature } from '../../src/problems/signature.js';

const HOUR = 3_600_000;
const sig = (hash: string, service: string): Signature => ({
  hash,
  canonical: `["tw1","InvalidJson","${service}","t","${hash}"]`,
  outcome: 'InvalidJson',
  service,
  tool: 't',
  parts: [hash],
});

interface Failure {
  signature: Signature;
  model: string;
  timeMs: number;
}

/** The grouping as maps write it (the shape record.ts had before delta.ts). */
function reference(failures: readonly Failure[]) {
  const out = new Map<
    string,
    {
      f: Failure;
      n: number;
      first: number;
      last: number;
      hours: Map<number, number>;
      models: Map<string, [number, number, number]>;
      pickFirst: number;
      pickLatest: number;
      modelFirst: Map<string, number>;
    }
  >();
  failures.forEach((f, i) => {
    const key = `${f.signature.service}\u0000${f.signature.hash}`;
    const t = Math.floor(f.timeMs);
    let d = out.get(key);
    if (!d) {
      d = {
        f,
        n: 0,
        first: t,
        last: t,
        hours: new Map(),
        models: new Map(),
        pickFirst: i,
        pickLatest: i,
        modelFirst: new Map(),
      };
      out.set(key, d);
    }
    d.n++;
    d.first = Math.min(d.first, t);
    d.last = Math.max(d.last, t);
    d.hours.set(t - (t % HOUR), (d.hours.get(t - (t % HOUR)) ?? 0) + 1);
    const m = d.models.get(f.model);
    d.models.set(f.model, m ? [m[0] + 1, Math.min(m[1], t), Math.max(m[2], t)] : [1, t, t]);
    if (t < Math.floor(failures[d.pickFirst]!.timeMs)) d.pickFirst = i;
    if (t >= Math.floor(failures[d.pickLatest]!.timeMs)) d.pickLatest = i;
    if (!d.modelFirst.has(f.model)) d.modelFirst.set(f.model, i);
  });
  return [...out.values()].map((d) => ({
    service: d.f.signature.service,
    hash: d.f.signature.hash,
    occurrences: d.n,
    firstMs: d.first,
    lastMs: d.last,
    hours: [...d.hours].flat(),
    models: [...d.models].map(([model, [count, firstMs, lastMs]]) => ({ model, count, firstMs, lastMs })),
    slots: [['first', d.pickFirst], ['latest', d.pickLatest], ...[...d.modelFirst].map(([m, i]) => [`model:${m}`, i])],
  }));
}

function grouped(failures: readonly Failure[]) {
  const g = new Grouper<number>();
  failures.forEach((f, i) => {
    g.add(f.signature, f.signature.service, f.model, f.timeMs, i);
  });
  return g
    .deltas((i) => ({ timeMs: i, model: '', traceId: '', spanId: '', name: '', message: String(i) }))
    .map((d) => ({
      service: d.service,
      hash: d.signature.hash,
      occurrences: d.occurrences,
      firstMs: d.firstMs,
      lastMs: d.lastMs,
      hours: d.hours,
      models: d.models,
      slots: d.examples.map((e) => [e.slot, Number(e.message)]),
    }));
}

function failures(problems: number, n: number, seed: number): Failure[] {
  let s = seed;
  const r = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s / 2 ** 32);
  const sigs = Array.from({ length: problems }, (_, i) => sig(`${i}`.padStart(16, '0'), `svc${i % 3}`));
  return Array.from({ length: n }, () => ({
    signature: sigs[Math.floor(r() * problems)]!,
    model: `m${Math.floor(r() * 3)}`,
    timeMs: 1_700_000_000_000 + Math.floor(r() * 3) * HOUR + r() * 1000,
  }));
}

describe('a batch grouped per problem', () => {
  it.each([
    [3, 40],
    [30, 400],
  ])('%i problems, %i failures: as the maps group them', (problems, n) => {
    const f = failures(problems, n, problems);
    expect(grouped(f)).toEqual(reference(f));
  });

  it('two services whose signatures share a hash stay two problems', () => {
    const f = [
      { signature: sig('abc', 'a'), model: 'm', timeMs: 1 },
      { signature: sig('abc', 'b'), model: 'm', timeMs: 2 },
      { signature: sig('abc', 'a'), model: 'm', timeMs: 3 },
      { signature: sig('abc', 'b'), model: 'n', timeMs: 4 },
    ];
    expect(grouped(f)).toEqual(reference(f));
    // Also once there are more problems than it looks through one by one.
    const many = [...failures(12, 40, 5), ...f, ...failures(12, 40, 6)];
    expect(grouped(many)).toEqual(reference(many));
    expect(grouped(f).map((d) => [d.service, d.occurrences])).toEqual([
      ['a', 2],
      ['b', 2],
    ]);
  });
});
