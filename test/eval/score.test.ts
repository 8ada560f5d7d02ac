/** The pure matchers: argument modes, trajectory modes as agentevals defines them, macro-F1. */
import { describe, expect, it } from 'vitest';
import { argsProblems, deepEqual, softEqual } from '../../src/eval/args.js';
import { macroF1 } from '../../src/eval/score.js';
import { matchTrajectory, type MadeCall } from '../../src/eval/trajectory.js';
import type { ArgsSpec, Expectation, ToolArgsMode, TrajectoryMode } from '../../src/eval/types.js';

describe('argument values', () => {
  it('exact is JSON equality without coercion', () => {
    expect(deepEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(deepEqual({ w: 750 }, { w: '750' })).toBe(false);
    expect(deepEqual({ z: '02139' }, { z: 2139 })).toBe(false);
    expect(deepEqual({ a: null }, {})).toBe(false);
    expect(deepEqual([1, 2], { 0: 1, 1: 2 })).toBe(false);
  });

  it('soft forgives case, accents and spacing in strings only', () => {
    expect(softEqual('Novák', ' novak ')).toBe(true);
    expect(softEqual('Žluťoučký  kůň', 'zlutoucky kun')).toBe(true);
    expect(softEqual('Novák', 'Nowak')).toBe(false);
    expect(softEqual(1, '1')).toBe(false);
  });

  const spec = (p: Partial<ArgsSpec>): ArgsSpec => ({
    checks: [],
    optional: [],
    constraints: {},
    extra: 'fail',
    literal: {},
    ...p,
  });
  const table: [string, ArgsSpec, Record<string, unknown>, string[]][] = [
    ['all exact', spec({ checks: [{ key: 'sku', mode: 'exact', value: 'A' }] }), { sku: 'A' }, []],
    ['missing', spec({ checks: [{ key: 'sku', mode: 'exact', value: 'A' }] }), {}, ['sku: missing (expected "A")']],
    [
      'extra fails',
      spec({ checks: [{ key: 'sku', mode: 'exact', value: 'A' }] }),
      { sku: 'A', n: 1 },
      ['n: unexpected argument'],
    ],
    [
      'extra ignored (expected_tool cases)',
      spec({ checks: [{ key: 'sku', mode: 'exact', value: 'A' }], extra: 'ignore' }),
      { sku: 'A', n: 1 },
      [],
    ],
    ['ignore mode needs nothing', spec({ checks: [{ key: 'id', mode: 'ignore', value: 'x' }] }), { id: 'other' }, []],
    [
      'optional within constraints',
      spec({ optional: ['limit'], constraints: { limit: { integer: true, minimum: 1, maximum: 20 } } }),
      { limit: 5 },
      [],
    ],
    [
      'optional out of range',
      spec({ optional: ['limit'], constraints: { limit: { integer: true, minimum: 1, maximum: 20 } } }),
      { limit: 50 },
      ['limit: must be ≤ 20, got 50'],
    ],
    [
      'optional not an integer',
      spec({ optional: ['limit'], constraints: { limit: { integer: true } } }),
      { limit: 2.5 },
      ['limit: must be an integer, got 2.5'],
    ],
    ['optional absent is fine', spec({ optional: ['limit'], constraints: { limit: { minimum: 1 } } }), {}, []],
    [
      'pattern and enum',
      spec({ optional: ['cc', 's'], constraints: { cc: { pattern: '^[A-Z]{2}$' }, s: { enum: ['a'] } } }),
      { cc: 'ca', s: 'b' },
      ['cc: must match /^[A-Z]{2}$/, got "ca"', 's: must be one of ["a"], got "b"'],
    ],
  ];
  it.each(table)('%s', (_n, s, actual, want) => expect(argsProblems(s, actual)).toEqual(want));
});

describe('trajectory match (agentevals modes)', () => {
  const c = (name: string, args: Record<string, unknown> = {}): MadeCall => ({ name, args });
  const exp = (
    calls: MadeCall[],
    match: TrajectoryMode,
    argsMode: ToolArgsMode = 'exact',
    argsOverrides: Record<string, ToolArgsMode> = {},
  ) =>
    ({
      kind: 'trajectory',
      calls: calls.map((x) => ({ name: x.name, arguments: x.args! })),
      match,
      argsMode,
      argsOverrides,
    }) as Extract<Expectation, { kind: 'trajectory' }>;
  const A = c('a', { x: 1 });
  const B = c('b', { y: 2 });
  const C = c('c');
  const table: [string, ReturnType<typeof exp>, MadeCall[], boolean][] = [
    ['strict: same order', exp([A, B], 'strict'), [A, B], true],
    ['strict: other order', exp([A, B], 'strict'), [B, A], false],
    ['strict: extra call', exp([A, B], 'strict'), [A, B, C], false],
    ['unordered: any order', exp([A, B], 'unordered'), [B, A], true],
    ['unordered: extra call', exp([A, B], 'unordered'), [B, A, C], false],
    ['unordered: a call twice', exp([A, B], 'unordered'), [A, A, B], false],
    ['subset: fewer calls', exp([A, B], 'subset'), [B], true],
    ['subset: nothing called', exp([A, B], 'subset'), [], true],
    ['subset: an extra tool', exp([A, B], 'subset'), [A, C], false],
    ['superset: extras allowed', exp([A, B], 'superset'), [C, B, A], true],
    ['superset: one missing', exp([A, B], 'superset'), [A, C], false],
    ['args exact differ', exp([A], 'strict'), [c('a', { x: 2 })], false],
    ['args ignore', exp([A], 'strict', 'ignore'), [c('a', { x: 2 })], true],
    ['args superset: made ⊇ expected', exp([A], 'strict', 'superset'), [c('a', { x: 1, z: 3 })], true],
    ['args superset: one missing', exp([c('a', { x: 1, w: 1 })], 'strict', 'superset'), [c('a', { x: 1 })], false],
    ['args subset: made ⊆ expected', exp([c('a', { x: 1, w: 1 })], 'strict', 'subset'), [c('a', { x: 1 })], true],
    ['args subset: extra key', exp([A], 'strict', 'subset'), [c('a', { x: 1, z: 3 })], false],
    [
      'override by keys (dot path)',
      exp([c('a', { q: { id: 1 }, t: 'x' })], 'strict', 'exact', { a: ['q.id'] }),
      [c('a', { q: { id: 1 }, t: 'y' })],
      true,
    ],
    ['override by mode', exp([A, B], 'strict', 'exact', { b: 'ignore' }), [A, c('b', { y: 9 })], true],
    ['unparsed arguments match only ignore', exp([A], 'strict'), [{ name: 'a', args: undefined }], false],
  ];
  it.each(table)('%s', (_n, e, made, ok) => expect(matchTrajectory(e, made).ok).toBe(ok));
});

describe('macro-F1', () => {
  it('averages 2tp/(2tp+fp+fn) over the classes seen, (missing) counted against the expected class only', () => {
    // a: tp 2, fn 1 (b), fn 1 (missing) → 4/6; b: tp 1, fp 1 → 2/3; (none): tp 1 → 1.
    const f = macroF1({ a: { a: 2, b: 1, '(missing)': 1 }, b: { b: 1 }, '(none)': { '(none)': 1 } });
    expect(f.denominator).toBe(3);
    expect(f.value).toBeCloseTo((4 / 6 + 2 / 3 + 1) / 3, 6);
  });
});
