/** The outcome contract (the README's outcome table), table-driven: first rule that applies wins. */
import { describe, expect, it } from 'vitest';
import { classify, type CallToCheck } from '../../src/check/classify.js';
import { loadToolRegistry, ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import type { ToolArgs, ToolDef } from '../../src/model.js';

const s = (raw: string): ToolArgs => ({ kind: 'string', raw });
const none: ToolArgs = { kind: 'none' };
const weather: ToolDef = {
  name: 'weather',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer', default: 3 } },
    required: ['city'],
    additionalProperties: false,
  },
};
const draft2020: ToolDef = {
  name: 'tuple',
  parameters: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } },
  },
};
const draft2019: ToolDef = {
  name: 'dep',
  parameters: {
    $schema: 'https://json-schema.org/draft/2019-09/schema',
    type: 'object',
    dependentRequired: { a: ['b'] },
  },
};
const withFormat: ToolDef = {
  name: 'mail',
  parameters: { type: 'object', properties: { to: { type: 'string', format: 'email' } }, 'x-vendor': true },
};
const broken: ToolDef = { name: 'broken', parameters: { type: 'object', properties: { a: { $ref: '#/nowhere' } } } };
const noSchema: ToolDef = { name: 'bare' };

const registry = new ToolRegistry();
registry.add('billing', [
  { name: 'refund', parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] } },
]);

const cases: { name: string; call: CallToCheck; want: string; detail?: unknown }[] = [
  {
    name: 'valid',
    call: { name: 'weather', args: s('{"city":"Oslo"}'), service: 'x', offered: [weather] },
    want: 'valid',
  },
  {
    name: 'structured args (kvlist) valid',
    call: {
      name: 'weather',
      args: { kind: 'structured', value: { city: 'Oslo' }, raw: '{"city":"Oslo"}' },
      service: 'x',
      offered: [weather],
    },
    want: 'valid',
  },
  {
    name: 'not JSON',
    call: { name: 'weather', args: s('{"city": Oslo'), service: 'x', offered: [weather] },
    want: 'InvalidJson',
  },
  {
    name: 'JSON but an array',
    call: { name: 'weather', args: s('["Oslo"]'), service: 'x', offered: [weather] },
    want: 'InvalidJson',
    detail: 'arguments must be a JSON object, got an array',
  },
  {
    name: 'JSON but null',
    call: { name: 'weather', args: s('null'), service: 'x', offered: [weather] },
    want: 'InvalidJson',
  },
  {
    name: 'InvalidJson wins over UnknownName',
    call: { name: 'nope', args: s('{'), service: 'x', offered: [weather] },
    want: 'InvalidJson',
  },
  {
    name: 'invented name',
    call: { name: 'wether', args: s('{"city":"Oslo"}'), service: 'x', offered: [weather] },
    want: 'UnknownName',
    detail: ['weather'],
  },
  {
    name: 'invented name without arguments is still UnknownName',
    call: { name: 'wether', args: none, service: 'x', offered: [weather] },
    want: 'UnknownName',
  },
  {
    name: 'no coercion: "3" is not an integer',
    call: { name: 'weather', args: s('{"city":"Oslo","days":"3"}'), service: 'x', offered: [weather] },
    want: 'SchemaMismatch',
    detail: [{ instancePath: '/days', keyword: 'type' }],
  },
  {
    name: 'all errors collected',
    call: { name: 'weather', args: s('{"days":1.5,"extra":1}'), service: 'x', offered: [weather] },
    want: 'SchemaMismatch',
    detail: [
      { instancePath: '', keyword: 'required' },
      { instancePath: '', keyword: 'additionalProperties' },
      { instancePath: '/days', keyword: 'type' },
    ],
  },
  {
    name: 'draft 2020-12 by $schema',
    call: { name: 'tuple', args: s('{"pair":["a",1,2]}'), service: 'x', offered: [draft2020] },
    want: 'SchemaMismatch',
  },
  {
    name: 'draft 2020-12 valid',
    call: { name: 'tuple', args: s('{"pair":["a",1]}'), service: 'x', offered: [draft2020] },
    want: 'valid',
  },
  {
    name: 'draft 2019-09 by $schema',
    call: { name: 'dep', args: s('{"a":1}'), service: 'x', offered: [draft2019] },
    want: 'SchemaMismatch',
  },
  {
    name: 'formats checked, vendor keywords ignored',
    call: { name: 'mail', args: s('{"to":"not-an-email"}'), service: 'x', offered: [withFormat] },
    want: 'SchemaMismatch',
    detail: [{ instancePath: '/to', keyword: 'format' }],
  },
  {
    name: 'no arguments captured',
    call: { name: 'weather', args: none, service: 'x', offered: [weather] },
    want: 'unvalidated',
    detail: 'no_arguments',
  },
  {
    name: 'offered without a schema',
    call: { name: 'bare', args: s('{}'), service: 'x', offered: [noSchema] },
    want: 'unvalidated',
    detail: 'no_schema',
  },
  {
    name: 'schema does not compile',
    call: { name: 'broken', args: s('{}'), service: 'x', offered: [broken] },
    want: 'unvalidated',
    detail: 'bad_schema',
  },
  {
    name: 'no definitions anywhere',
    call: { name: 'anything', args: s('{}'), service: 'other' },
    want: 'unvalidated',
    detail: 'no_schema',
  },
  { name: 'registry: valid', call: { name: 'refund', args: s('{"amount":5}'), service: 'billing' }, want: 'valid' },
  {
    name: 'registry: mismatch',
    call: { name: 'refund', args: s('{"amount":"5"}'), service: 'billing' },
    want: 'SchemaMismatch',
  },
  {
    name: 'registry: invented name',
    call: { name: 'refnud', args: s('{}'), service: 'billing' },
    want: 'UnknownName',
    detail: ['refund'],
  },
  {
    name: 'empty offered list falls back to the registry',
    call: { name: 'refund', args: s('{"amount":5}'), service: 'billing', offered: [] },
    want: 'valid',
  },
  {
    name: 'offered definitions win over the registry',
    call: { name: 'refund', args: s('{"amount":5}'), service: 'billing', offered: [weather] },
    want: 'UnknownName',
  },
  {
    name: 'offered name without schema borrows the registry schema',
    call: { name: 'refund', args: s('{}'), service: 'billing', offered: [{ name: 'refund' }] },
    want: 'SchemaMismatch',
  },
  // A "schema" with no known keyword accepts everything; it must not make a call valid.
  {
    name: 'arguments where a schema belongs → bad_schema',
    call: {
      name: 'q',
      args: s('{"query":"cake"}'),
      service: 'x',
      offered: [{ name: 'q', parameters: { query: 'cake type' } }],
    },
    want: 'unvalidated',
    detail: 'bad_schema',
  },
  {
    name: 'a Bedrock {json} envelope left unwrapped → bad_schema',
    call: {
      name: 'q',
      args: s('{}'),
      service: 'x',
      offered: [{ name: 'q', parameters: { json: { type: 'object' } } }],
    },
    want: 'unvalidated',
    detail: 'bad_schema',
  },
  {
    name: 'annotations only → bad_schema',
    call: {
      name: 'q',
      args: s('{"a":1}'),
      service: 'x',
      offered: [{ name: 'q', parameters: { title: 'Q', description: 'anything' } }],
    },
    want: 'unvalidated',
    detail: 'bad_schema',
  },
  {
    name: 'a keyword with the wrong value type is no keyword',
    call: {
      name: 'q',
      args: s('{"a":1}'),
      service: 'x',
      offered: [{ name: 'q', parameters: { type: 'news', query: 'x' } }],
    },
    want: 'unvalidated',
    detail: 'bad_schema',
  },
  {
    name: 'not a schema offered, the registry has one: the registry schema is used',
    call: {
      name: 'refund',
      args: s('{"amount":"5"}'),
      service: 'billing',
      offered: [{ name: 'refund', parameters: { amount: 5 } }],
    },
    want: 'SchemaMismatch',
  },
  {
    name: 'a definition that says {} accepts any object',
    call: { name: 'ping', args: s('{"anything":1}'), service: 'x', offered: [{ name: 'ping', parameters: {} }] },
    want: 'valid',
  },
  {
    name: 'a definition that says {} still needs an object',
    call: { name: 'ping', args: s('[1]'), service: 'x', offered: [{ name: 'ping', parameters: {} }] },
    want: 'InvalidJson',
  },
  {
    name: 'a definition that says true accepts any object',
    call: { name: 'ping', args: s('{}'), service: 'x', offered: [{ name: 'ping', parameters: true }] },
    want: 'valid',
  },
  {
    name: 'a schema given as an unparseable string → bad_schema',
    call: { name: 'q', args: s('{}'), service: 'x', offered: [{ name: 'q', parameters: '{"type":' }] },
    want: 'unvalidated',
    detail: 'bad_schema',
  },
  // A call nobody named is never counted under an empty label.
  {
    name: 'no name → unvalidated no_name, before everything else',
    call: { name: '', args: s('{'), service: 'x', offered: [weather] },
    want: 'unvalidated',
    detail: 'no_name',
  },
];

describe('classify', () => {
  const schemas = new SchemaCache();
  it.each(cases)('$name → $want', ({ call, want, detail }) => {
    const outcome = classify(call, registry, schemas);
    expect(outcome.outcome).toBe(want);
    if (detail === undefined) return;
    if (outcome.outcome === 'InvalidJson') expect(outcome.message).toBe(detail);
    if (outcome.outcome === 'UnknownName') expect(outcome.known).toEqual(detail);
    if (outcome.outcome === 'unvalidated') expect(outcome.reason).toBe(detail);
    if (outcome.outcome === 'SchemaMismatch') {
      const got = outcome.errors
        .map((e) => ({ instancePath: e.instancePath, keyword: e.keyword }))
        .sort((a, b) => (a.keyword + a.instancePath).localeCompare(b.keyword + b.instancePath));
      const exp = (detail as { instancePath: string; keyword: string }[])
        .slice()
        .sort((a, b) => (a.keyword + a.instancePath).localeCompare(b.keyword + b.instancePath));
      expect(got).toEqual(exp);
      for (const e of outcome.errors) expect(typeof e.message).toBe('string');
    }
  });

  it('does not insert defaults or remove properties from the arguments', () => {
    const value = { city: 'Oslo' };
    classify(
      { name: 'weather', args: { kind: 'structured', value, raw: '' }, service: 'x', offered: [weather] },
      registry,
      schemas,
    );
    expect(value).toEqual({ city: 'Oslo' });
  });

  it('compiles a schema once, however many calls and however its keys are ordered', () => {
    const cache = new SchemaCache();
    const a = { name: 't', parameters: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] } };
    const b = { name: 't', parameters: { required: ['x'], properties: { x: { type: 'string' } }, type: 'object' } };
    for (let i = 0; i < 1000; i++)
      classify({ name: 't', args: s(`{"x":"${i}"}`), service: 'x', offered: [i % 2 ? a : b] }, registry, cache);
    expect(cache.compiled).toBe(1);
  });
});

describe('tool registry files', () => {
  it('loads every common definition shape', () => {
    const files: Record<string, string> = {
      '/t/openai.json': JSON.stringify([{ type: 'function', function: { name: 'a', parameters: { type: 'object' } } }]),
      '/t/flat.yaml': '- name: b\n  parameters: {type: object}\n- type: function\n  name: c\n',
      '/t/vercel.json': JSON.stringify([{ name: 'd', inputSchema: { type: 'object' } }]),
      '/t/anthropic.json': JSON.stringify({ tools: [{ name: 'e', input_schema: { type: 'object' } }] }),
    };
    const res = loadToolRegistry(
      Object.keys(files).map((path, i) => ({ path, ...(i === 0 ? { service: 'svc' } : {}) })),
      (p) => files[p]!,
    );
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    expect(res.registry.names('svc')).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(res.registry.names('other')).toEqual(['b', 'c', 'd', 'e']);
    expect(res.registry.lookup('svc', 'e')?.parameters).toEqual({ type: 'object' });
  });

  it('reports every bad file and entry', () => {
    const files: Record<string, string> = {
      '/t/a.json': '{not json',
      '/t/b.json': '{"x":1}',
      '/t/c.json': '[{"description":"no name"}]',
    };
    const res = loadToolRegistry(
      [{ path: '/t/a.json' }, { path: '/t/b.json' }, { path: '/t/c.json' }, { path: '/t/missing.json' }],
      (p) => {
        const f = files[p];
        if (f === undefined) throw new Error(`ENOENT: ${p}`);
        return f;
      },
    );
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.problems).toHaveLength(4);
    expect(res.problems.join('\n')).toMatch(/a\.json.*JSON|a\.json/);
    expect(res.problems.join('\n')).toMatch(/c\.json\[0\]/);
    expect(res.problems.join('\n')).toMatch(/missing\.json/);
  });
});
