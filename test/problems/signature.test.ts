/**
 * Signatures over real Ajv errors: each schema is compiled by the project's checker (classify +
 * SchemaCache) and each broken argument string run through it, so the errors are the ones production
 * would keep.
 */
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/check/classify.js';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import type { ToolDef, ValidationError } from '../../src/model.js';
import { reducePath, signatureOf } from '../../src/problems/signature.js';

const order: ToolDef = {
  name: 'create_order',
  parameters: {
    type: 'object',
    properties: {
      amount: { type: 'number', minimum: 0 },
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: { sku: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' }, qty: { type: 'integer' } },
          required: ['sku'],
          additionalProperties: false,
        },
      },
      metadata: { type: 'object', additionalProperties: { type: 'string' } },
      tags: { type: 'object', patternProperties: { '^x-': { type: 'object', required: ['v'] } } },
      address: { $ref: '#/$defs/address' },
    },
    required: ['amount'],
    $defs: { address: { type: 'object', properties: { zip: { type: 'string' } }, required: ['zip'] } },
  },
};

const cache = new SchemaCache();
const registry = new ToolRegistry();

function errorsOf(raw: string, def: ToolDef = order): ValidationError[] {
  const out = classify(
    { name: def.name, args: { kind: 'string', raw }, service: 'shop', offered: [def] },
    registry,
    cache,
  );
  if (out.outcome !== 'SchemaMismatch') throw new Error(`expected SchemaMismatch, got ${out.outcome}`);
  return out.errors;
}

const parts = (raw: string) =>
  signatureOf({
    kind: 'SchemaMismatch',
    service: 'shop',
    tool: 'create_order',
    errors: errorsOf(raw),
    schema: order.parameters,
  }).parts;

describe('SchemaMismatch signature over real Ajv errors', () => {
  it.each([
    ['missing top-level field', '{}', ['required /amount']],
    ['wrong type', '{"amount":"12"}', ['type /amount']],
    ['value differs, same key', '{"amount":-5}', ['minimum /amount']],
    ['missing field in an array item', '{"amount":1,"items":[{"qty":1}]}', ['required /items/*/sku']],
    [
      'indices collapse: two bad items are one part',
      '{"amount":1,"items":[{"qty":1},{"sku":"ABC-1"},{"qty":"x"}]}',
      ['required /items/*/sku', 'type /items/*/qty'],
    ],
    ['pattern on a nested field', '{"amount":1,"items":[{"sku":"nope"}]}', ['pattern /items/*/sku']],
    [
      'invented property name is not part of it',
      '{"amount":1,"items":[{"sku":"ABC-1","colour":"red"}]}',
      ['additionalProperties /items/*'],
    ],
    ['open-ended map key collapses', '{"amount":1,"metadata":{"customer_42":7}}', ['type /metadata/*']],
    ['patternProperties key collapses', '{"amount":1,"tags":{"x-foo":{}}}', ['required /tags/*/v']],
    ['through a local $ref', '{"amount":1,"address":{"zip":5}}', ['type /address/zip']],
    ['required inside a $ref', '{"amount":1,"address":{}}', ['required /address/zip']],
    ['several errors, sorted', '{"items":{}}', ['required /amount', 'type /items']],
  ])('%s', (_name, raw, expected) => {
    expect(parts(raw)).toEqual(expected);
  });

  it('the same failure with other values has the same hash; another failure has another', () => {
    const sig = (raw: string) =>
      signatureOf({
        kind: 'SchemaMismatch',
        service: 'shop',
        tool: 'create_order',
        errors: errorsOf(raw),
        schema: order.parameters,
      });
    const a = sig('{"amount":1,"items":[{"qty":1}]}');
    const b = sig('{"amount":999,"items":[{"qty":3},{"qty":4},{"qty":5}]}');
    const c = sig('{"amount":"1"}');
    expect(a.hash).toBe(b.hash);
    expect(a.hash).not.toBe(c.hash);
    expect(a.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(a.canonical).not.toContain('999');
  });

  it('the service and the tool are part of the key', () => {
    const errors = errorsOf('{}');
    const h = (service: string, tool: string) => signatureOf({ kind: 'SchemaMismatch', service, tool, errors }).hash;
    expect(new Set([h('shop', 'a'), h('shop', 'b'), h('other', 'a')]).size).toBe(3);
  });

  it('without the schema, indices still collapse and names are kept', () => {
    expect(reducePath('/items/3/sku')).toBe('/items/*/sku');
    expect(reducePath('/a~1b/0')).toBe('/a~1b/*');
    expect(reducePath('')).toBe('');
  });

  it('a name declared in one branch of anyOf keeps its name', () => {
    const schema = {
      anyOf: [{ properties: { a: { type: 'object', properties: { b: {} } } } }, { additionalProperties: {} }],
    };
    expect(reducePath('/a/b', schema)).toBe('/a/b');
    expect(reducePath('/zz/b', schema)).toBe('/*/*');
  });

  it('draft 2020 prefixItems: positions collapse', () => {
    const tuple: ToolDef = {
      name: 'tuple',
      parameters: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
      },
    };
    const errors = errorsOf('{"pair":[1,"x"]}', tuple);
    const sig = signatureOf({ kind: 'SchemaMismatch', service: 's', tool: 'tuple', errors, schema: tuple.parameters });
    expect(sig.parts).toEqual(['type /pair/*']);
  });
});

describe('other signatures', () => {
  it('UnknownName: case-folded invented name', () => {
    const a = signatureOf({ kind: 'UnknownName', service: 'shop', name: 'Get_Weather ' });
    const b = signatureOf({ kind: 'UnknownName', service: 'shop', name: 'get_weather' });
    const c = signatureOf({ kind: 'UnknownName', service: 'other', name: 'get_weather' });
    expect(a.hash).toBe(b.hash);
    expect(a.tool).toBe('get_weather');
    expect(c.hash).not.toBe(a.hash);
  });

  it('InvalidJson: the cause is part of the key', () => {
    const h = (cause: 'truncated' | 'concatenated') =>
      signatureOf({ kind: 'InvalidJson', service: 'shop', tool: 'refund', cause }).hash;
    expect(h('truncated')).not.toBe(h('concatenated'));
  });

  it.each([
    [{ status: 'client_error', httpStatus: 404 }, ['client_error', 'http:404']],
    [{ status: 'server_error', httpStatus: 503, errorType: 'ignored' }, ['http:503', 'server_error']],
    [{ status: 'server_error', errorType: 'TimeoutError' }, ['server_error', 'type:TimeoutError']],
    [{ status: 'error', errorType: 'java.net.UnknownHostException' }, ['error', 'type:java.net.UnknownHostException']],
    // A free-text message is not a type: it would make one problem per message.
    [{ status: 'error', errorType: 'could not reach host 10.0.0.7 after 3 tries' }, ['-', 'error']],
    [{ status: 'error' }, ['-', 'error']],
  ] as const)('execution %j', (detail, expected) => {
    expect(signatureOf({ kind: 'execution', service: 's', tool: 't', ...detail }).parts).toEqual(expected);
  });

  it('hashes are pinned: the canonical form is a contract across processes and versions', () => {
    // Computed once and written here; a change to any rule must change SIGNATURE_VERSION instead.
    const sig = signatureOf({
      kind: 'SchemaMismatch',
      service: 'shop',
      tool: 'refund_order',
      errors: [{ instancePath: '', keyword: 'required', message: '', params: { missingProperty: 'amount' } }],
    });
    expect(sig.canonical).toBe('["tw1","SchemaMismatch","shop","refund_order","required /amount"]');
    expect(sig.hash).toBe(PINNED);
  });
});

const PINNED = '6b7b8602a08d5227';
