/**
 * What checking one call, one batch and one token may cost (src/check/budget.ts,
 * linear-keywords.ts; issue 17, findings 1 and 6): the linear `uniqueItems` and `enum` answer
 * exactly as Ajv's own keywords do, the compile budget is charged per batch and per token over time,
 * and whatever a check throws is that call's `unvalidated` outcome, never its batch's error.
 */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { CompileBudget, deeperThan, type CheckLimits } from '../../src/check/budget.js';
import { classify } from '../../src/check/classify.js';
import { duplicatePair } from '../../src/check/linear-keywords.js';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import type { ToolArgs } from '../../src/model.js';

const stock = new Ajv({ allErrors: true, strict: false });
const errorsOf = (validate: { errors?: unknown }) =>
  ((validate.errors ?? []) as { keyword: string; message: string; params: object; instancePath: string }[]).map(
    (e) => ({ keyword: e.keyword, message: e.message, params: e.params, instancePath: e.instancePath }),
  );

describe('uniqueItems and enum in linear time answer as Ajv does', () => {
  const cases: [string, object, unknown][] = [
    ['distinct objects', { uniqueItems: true }, [{ a: 1 }, { a: 2 }, { b: 1 }]],
    ['equal objects, other key order', { uniqueItems: true }, [{ a: 1, b: 2 }, { c: 3 }, { b: 2, a: 1 }]],
    ['several duplicates: the last pair Ajv finds', { uniqueItems: true }, [1, 2, 1, 3, 2, 3, 9]],
    ['1 and "1" differ', { uniqueItems: true }, [1, '1', true, 'true', null, 'null']],
    [
      'nested arrays',
      { uniqueItems: true },
      [
        [1, [2]],
        [1, [3]],
        [1, [2]],
      ],
    ],
    ['0 and -0 are equal', { uniqueItems: true }, [0, -0]],
    ['uniqueItems false', { uniqueItems: false }, [1, 1]],
    ['not an array', { uniqueItems: true }, { a: 1 }],
    ['enum of scalars, in', { enum: ['a', 1, null] }, 1],
    ['enum of scalars, out', { enum: ['a', 1, null] }, '1'],
    ['enum of strings that read as other scalars, out', { enum: ['true', '1', 'null'] }, true],
    ['enum of mixed values, a string in', { enum: [{ a: 1 }, [1], 'x"y', 2.5, false] }, 'x"y'],
    ['enum of mixed values, a number in', { enum: [{ a: 1 }, [1], 'x"y', 2.5, false] }, 2.5],
    ['enum of objects, key order', { enum: [{ x: 1, y: [1, 2] }] }, { y: [1, 2], x: 1 }],
    ['enum of objects, out', { enum: [{ x: 1, y: [1, 2] }] }, { y: [2, 1], x: 1 }],
    ['enum nested under items', { type: 'array', items: { enum: [1, 2] } }, [1, 3, 2, 4]],
  ];
  const cache = new SchemaCache();
  it.each(cases)('%s', (_, schema, data) => {
    const ours = cache.get(schema);
    if (!ours.ok) throw new Error('did not compile');
    const theirs = stock.compile(schema);
    expect(ours.validate(data)).toBe(theirs(data));
    expect(errorsOf(ours.validate)).toEqual(errorsOf(theirs));
  });

  it('duplicatePair is the pair Ajv reports', () => {
    expect(duplicatePair([])).toBeNull();
    expect(duplicatePair([{ a: 1 }, { a: 1 }])).toEqual([1, 0]);
    expect(duplicatePair(['x', 'y', 'x', 'x'])).toEqual([3, 2]);
  });

  it('the meta-schema check of a schema with a 20,000-value enum is linear too', () => {
    const values = Array.from({ length: 20_000 }, (_, i) => ({ id: i }));
    const compiled = cache.get({ type: 'object', properties: { v: { enum: values } } });
    expect(compiled.ok && compiled.validate({ v: { id: 19_999 } })).toBe(true);
    expect(compiled.ok && compiled.validate({ v: { id: 20_000 } })).toBe(false);
  });
});

describe('CompileBudget', () => {
  const limits = { compileBytesPerBatch: 100, compileBytesPerTokenPerMinute: 250 };

  it('a batch compiles up to its bound; a schema larger than the bound never fits', () => {
    const a = new CompileBudget(limits, () => 0).forBatch();
    expect([a.take(60), a.take(50), a.take(40), a.take(101)]).toEqual(['ok', 'budget', 'ok', 'too_large']);
  });

  it("a token's bucket holds a minute's worth, refills with time, and is the token's own", () => {
    let now = 0;
    const budget = new CompileBudget(limits, () => now);
    const spend = (token: string) => {
      const batch = budget.forBatch(token);
      let n = 0;
      while (batch.take(10) === 'ok') n += 10;
      return n;
    };
    expect([spend('team-a'), spend('team-a'), spend('team-a'), spend('team-a')]).toEqual([100, 100, 50, 0]);
    expect(spend('team-b')).toBe(100);
    now += 30_000; // half a minute: half of 250 back
    expect([spend('team-a'), spend('team-a')]).toEqual([100, 20]);
    now += 3_600_000; // never more than a minute's worth
    expect([spend('team-a'), spend('team-a'), spend('team-a'), spend('team-a')]).toEqual([100, 100, 50, 0]);
  });
});

describe('deeperThan', () => {
  const nest = (n: number): unknown => (n === 0 ? 'leaf' : n % 2 ? { c: nest(n - 1) } : [nest(n - 1)]);
  it.each([
    [0, 'x', false],
    [1, {}, false],
    [1, nest(1), false],
    [1, nest(2), true],
    [64, nest(64), false],
    [64, nest(65), true],
    [3, { a: 1, b: [{ c: [1] }] }, true],
    [4, { a: 1, b: [{ c: [1] }] }, false],
  ])('max %i, case %#: deeper = %s', (max, value, deeper) => {
    expect(deeperThan(value, max)).toBe(deeper);
  });

  it('walks a value nested far deeper than the call stack allows, up to the largest bound the config allows', () => {
    const deep = JSON.parse(`${'{"c":'.repeat(200_000)}1${'}'.repeat(200_000)}`);
    expect(deeperThan(deep, 1000)).toBe(true);
    expect(deeperThan(nest(1000), 1000)).toBe(false);
    expect(deeperThan(nest(1001), 1000)).toBe(true);
  });
});

describe('classify never throws: what a check cannot do is that call’s outcome', () => {
  const tree = {
    $ref: '#/definitions/node',
    definitions: { node: { type: 'object', properties: { child: { $ref: '#/definitions/node' } } } },
  };
  const nested = (depth: number) => `${'{"child":'.repeat(depth)}{}${'}'.repeat(depth)}`;
  const s = (raw: string): ToolArgs => ({ kind: 'string', raw });
  const registry = new ToolRegistry();
  const limits: CheckLimits = {
    maxArgumentBytes: 1_000_000,
    maxArgumentDepth: 64,
    compileBytesPerBatch: 10_000,
    compileBytesPerTokenPerMinute: 10_000,
    validationTimePerBatchMs: 100,
  };
  const run = (schema: unknown, raw: string, over: Partial<CheckLimits> = {}, cache = new SchemaCache()) =>
    classify({ name: 't', args: s(raw), service: 'x', offered: [{ name: 't', parameters: schema }] }, registry, cache, {
      limits: { ...limits, ...over },
      compiles: new CompileBudget({ ...limits, ...over }).forBatch('token'),
    });

  it.each([
    ['within every bound', tree, nested(10), {}, { outcome: 'valid' }],
    ['over the depth cap', tree, nested(12_000), {}, { reason: 'too_deep' }],
    // The cap lifted: the validator itself overflows the stack, and only this call is unvalidated.
    ['a stack overflow in validate()', tree, nested(30_000), { maxArgumentDepth: 1_000_000 }, { reason: 'too_deep' }],
    ['over the size cap', tree, nested(10), { maxArgumentBytes: 50 }, { reason: 'too_large' }],
    ['a schema over the batch bound', tree, '{}', { compileBytesPerBatch: 20 }, { reason: 'too_large' }],
  ])('%s', (_, schema, raw, over, expected) => {
    expect(run(schema, raw, over)).toMatchObject(expected);
  });

  /** 1.9 KB of schema that makes Ajv evaluate a value 2^n times: 2^30 would take Ajv about an hour. */
  const exponential = (n: number) => {
    const $defs: Record<string, unknown> = { [`a${n}`]: { type: 'string' } };
    for (let i = 0; i < n; i++)
      $defs[`a${i}`] = { allOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] };
    return { type: 'object', properties: { x: { $ref: '#/$defs/a0' } }, $defs };
  };

  it('a validation past the deadline is stopped: budget; small ones after it still finish', () => {
    const cache = new SchemaCache();
    const offered = [
      { name: 'slow', parameters: exponential(30) },
      { name: 't', parameters: tree },
    ];
    const bounds = { limits, deadlineMs: performance.now() + 50 };
    const check = (name: string, raw: string) =>
      classify({ name, args: s(raw), service: 'x', offered }, registry, cache, bounds);
    expect(check('slow', '{"x":1}')).toMatchObject({ outcome: 'unvalidated', reason: 'budget' });
    // Past the deadline, a call that needs fewer than 1,024 steps never looks at the clock.
    expect(check('t', nested(3))).toEqual({ outcome: 'valid' });
    expect(check('slow', '{"x":1}')).toMatchObject({ outcome: 'unvalidated', reason: 'budget' });
    // Without a deadline (toolwatch eval) the same validator still answers, in full.
    const small = exponential(3);
    const compiled = cache.get(small);
    expect(compiled.ok && compiled.validate({ x: 1 })).toBe(false);
    expect(compiled.ok && compiled.validate.errors?.length).toBe(8);
  });

  it('a schema nested too deep to read is unvalidated, not thrown', () => {
    const deepSchema = JSON.parse(`${'{"not":'.repeat(30_000)}{"type":"object"}${'}'.repeat(30_000)}`);
    expect(run(deepSchema, '{}')).toMatchObject({ outcome: 'unvalidated', reason: 'too_deep' });
  });

  it('past the batch compile budget: budget; the same schema compiles in a later batch', () => {
    const cache = new SchemaCache();
    // Each of these schemas is 55 bytes of canonical JSON: four fit in a batch.
    const budget = new CompileBudget({ compileBytesPerBatch: 220, compileBytesPerTokenPerMinute: 10_000 });
    const schema = (i: number) => ({ type: 'object', properties: { [`p${i}`]: { type: 'string' } } });
    const check = (i: number, batch: ReturnType<CompileBudget['forBatch']>) =>
      classify(
        { name: 't', args: s('{}'), service: 'x', offered: [{ name: 't', parameters: schema(i) }] },
        registry,
        cache,
        {
          limits,
          compiles: batch,
        },
      ).outcome;
    const first = budget.forBatch('a');
    expect([0, 1, 2, 3, 4].map((i) => check(i, first))).toEqual(['valid', 'valid', 'valid', 'valid', 'unvalidated']);
    // Compiled ones are cached: free in any batch. The refused one is compiled when a batch can pay.
    const second = budget.forBatch('a');
    expect([0, 4].map((i) => check(i, second))).toEqual(['valid', 'valid']);
    expect(cache.compiled).toBe(5);
  });
});
