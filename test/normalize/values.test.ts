import { describe, expect, it } from 'vitest';
import { groupIndexed } from '../../src/normalize/indexed.js';
import { Lru } from '../../src/util/lru.js';
import type { ToolDef } from '../../src/model.js';
import { clearToolDefCache, parseToolDefs, toToolDef } from '../../src/tools/tooldefs.js';
import { jsonValue, parseJson, parseJsonText, resultText, toToolArgs } from '../../src/util/values.js';
import { attrs, kv } from '../helpers/spans.js';

const schema = { type: 'object', properties: { city: { type: 'string' } } };

describe('toToolArgs', () => {
  it.each([
    ['absent', undefined, { kind: 'none' }],
    ['null', null, { kind: 'none' }],
    ['empty string', '', { kind: 'none' }],
    ['JSON string stays a string', '{"a":1}', { kind: 'string', raw: '{"a":1}' }],
    ['invalid JSON stays a string', '{"a":', { kind: 'string', raw: '{"a":' }],
    ['structured object', kv({ a: 1 }), { kind: 'structured', value: kv({ a: 1 }), raw: '{"a":1}' }],
    ['structured array', [1, 2], { kind: 'structured', value: [1, 2], raw: '[1,2]' }],
    ['bytes', new TextEncoder().encode('{"b":2}'), { kind: 'string', raw: '{"b":2}' }],
  ])('%s', (_n, input, expected) => {
    expect(toToolArgs(input)).toEqual(expected);
  });
});

describe('jsonValue / resultText', () => {
  it('parses strings, passes structures, reports failure as undefined', () => {
    expect(jsonValue('[1]')).toEqual([1]);
    expect(jsonValue('nope')).toBeUndefined();
    const o = kv({ a: 1 });
    expect(jsonValue(o)).toBe(o);
    expect(resultText({ a: 1 })).toBe('{"a":1}');
    expect(resultText('plain')).toBe('plain');
    expect(resultText(undefined)).toBeUndefined();
  });
});

describe('parseJsonText / parseJson', () => {
  it('parse as JSON.parse does, failing with its SyntaxError message, and leave Error.stackTraceLimit as it was', () => {
    const limit = Error.stackTraceLimit;
    expect(parseJsonText('{"a":[1,"x"]}')).toEqual({ a: [1, 'x'] });
    for (const bad of ['{"a":', "{'a':1}", '', '[1,]', '{"a":1} x']) {
      let theirs: unknown;
      try {
        JSON.parse(bad);
      } catch (err) {
        theirs = err;
      }
      expect(theirs).toBeInstanceOf(SyntaxError);
      expect(() => parseJsonText(bad)).toThrow(new SyntaxError((theirs as Error).message));
      expect(parseJson(bad)).toBeUndefined();
      expect(Error.stackTraceLimit).toBe(limit);
    }
    // Errors made after a failed parse keep their stacks.
    expect(new Error('later').stack).toContain('values.test.ts');
  });
});

describe('groupIndexed', () => {
  it('groups numbered keys by index, numerically ordered, ignoring non-numeric ones', () => {
    const a = attrs({
      'p.10.x': 'j',
      'p.2.x': 'b',
      'p.2.y.0.z': 'c',
      'p.x.y': 'no',
      p: 'no',
      'p.3': 'no',
      'q.1.x': 'no',
    });
    const g = groupIndexed(a, 'p');
    expect(g.map((x) => [x.index, Object.fromEntries(x.fields)])).toEqual([
      [2, { x: 'b', 'y.0.z': 'c' }],
      [10, { x: 'j' }],
    ]);
    expect(groupIndexed(g[0]!.fields, 'y').map((x) => Object.fromEntries(x.fields))).toEqual([{ z: 'c' }]);
  });
});

describe('toToolDef', () => {
  it.each([
    ['OTel flat', { type: 'function', name: 'w', description: 'd', parameters: schema }],
    ['OpenAI wrapped', { type: 'function', function: { name: 'w', description: 'd', parameters: schema } }],
    ['parameters_json_schema', { name: 'w', description: 'd', parameters_json_schema: schema }],
    ['Vercel / MCP inputSchema', { type: 'function', name: 'w', description: 'd', inputSchema: schema }],
    ['Anthropic input_schema', { name: 'w', description: 'd', input_schema: schema }],
    ['parameters as a JSON string', { name: 'w', description: 'd', parameters: JSON.stringify(schema) }],
    ['structured kvlist', kv({ type: 'function', function: { name: 'w', description: 'd', parameters: schema } })],
    ['a JSON string of a definition', JSON.stringify({ name: 'w', description: 'd', parameters: schema })],
  ])('%s', (_n, input) => {
    expect(toToolDef(input)).toEqual({ name: 'w', description: 'd', parameters: schema });
  });

  it('rejects what names no tool; keeps an unparseable schema string for the checker', () => {
    expect(toToolDef({ description: 'x' })).toBeUndefined();
    expect(toToolDef({ name: '' })).toBeUndefined();
    expect(toToolDef(42)).toBeUndefined();
    expect(toToolDef({ name: 'a' })).toEqual({ name: 'a' });
    expect(toToolDef({ name: 'a', parameters: '{bad' })).toEqual({ name: 'a', parameters: '{bad' });
  });
});

describe('parseToolDefs', () => {
  it('reads lists, lists of JSON strings, {tools}, Gemini functionDeclarations', () => {
    expect(parseToolDefs([JSON.stringify({ name: 'a' }), { name: 'b' }])?.map((d) => d.name)).toEqual(['a', 'b']);
    expect(parseToolDefs({ tools: [{ name: 'a' }] })?.map((d) => d.name)).toEqual(['a']);
    expect(parseToolDefs([{ functionDeclarations: [{ name: 'a' }, { name: 'b' }] }])?.map((d) => d.name)).toEqual([
      'a',
      'b',
    ]);
    expect(parseToolDefs('[]')).toEqual([]);
    expect(parseToolDefs('[{"nope":1}]')).toBeUndefined();
    expect(parseToolDefs(undefined)).toBeUndefined();
  });

  it('memoises by the raw string, handing out the same frozen list each time', () => {
    clearToolDefCache();
    const s = JSON.stringify([{ name: 'a', parameters: schema }]);
    const first = parseToolDefs(s)!;
    const second = parseToolDefs(s)!;
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first[0])).toBe(true);
    expect(() => (first as ToolDef[]).push({ name: 'mutated' })).toThrow(TypeError);
    expect(parseToolDefs(s)!.map((d) => d.name)).toEqual(['a']);
  });
});

describe('Lru', () => {
  it('evicts the least recently used entry by count and by total key length', () => {
    const l = new Lru<number>(2, 10);
    l.set('a', 1);
    l.set('b', 2);
    l.get('a');
    l.set('c', 3);
    expect([l.get('a'), l.get('b'), l.get('c')]).toEqual([1, undefined, 3]);
    l.set('0123456789', 4);
    expect(l.size).toBe(1);
    l.set('01234567890', 5);
    expect(l.get('01234567890')).toBeUndefined();
  });

  it('keeps a key that keeps being hit while other keys churn through', () => {
    const l = new Lru<number>(4, 1_000);
    l.set('hot', 0);
    for (let i = 0; i < 100; i++) {
      expect(l.get('hot')).toBe(0);
      l.set(`cold${i}`, i);
    }
    expect(l.size).toBe(4);
  });
});
