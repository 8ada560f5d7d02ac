/** What counts as a JSON Schema: a known keyword with a value of the right type. */
import { describe, expect, it } from 'vitest';
import { looksLikeSchema, schemaShape } from '../../src/tools/schema-shape.js';

const rows: { value: unknown; shape: ReturnType<typeof schemaShape> }[] = [
  { value: { type: 'object', properties: { q: { type: 'string' } } }, shape: 'schema' },
  { value: { properties: { a: { title: 'A', type: 'integer' } }, required: ['a'] }, shape: 'schema' },
  { value: { $ref: '#/$defs/x', $defs: { x: { type: 'string' } } }, shape: 'schema' },
  { value: { anyOf: [{ type: 'string' }, { type: 'null' }] }, shape: 'schema' },
  { value: { enum: ['a', 'b'] }, shape: 'schema' },
  { value: { const: 3 }, shape: 'schema' },
  { value: { type: ['string', 'null'] }, shape: 'schema' },
  { value: { items: { type: 'string' } }, shape: 'schema' },
  { value: false, shape: 'schema' },
  { value: {}, shape: 'accepts-anything' },
  { value: true, shape: 'accepts-anything' },
  { value: { query: 'cake type' }, shape: 'not-a-schema' },
  { value: { type: 'news', query: 'x' }, shape: 'not-a-schema' },
  { value: { required: true }, shape: 'not-a-schema' },
  { value: { properties: 'none' }, shape: 'not-a-schema' },
  { value: { json: { type: 'object' } }, shape: 'not-a-schema' },
  { value: { title: 'Args', description: 'anything' }, shape: 'not-a-schema' },
  { value: [{ type: 'object' }], shape: 'not-a-schema' },
  { value: 'type: object', shape: 'not-a-schema' },
  { value: null, shape: 'not-a-schema' },
];

describe('schemaShape', () => {
  it.each(rows)('$value → $shape', ({ value, shape }) => {
    expect(schemaShape(value)).toBe(shape);
  });

  it('an empty object is not taken for a schema where arguments may stand instead', () => {
    expect(looksLikeSchema({})).toBe(false);
    expect(looksLikeSchema({ type: 'object' })).toBe(true);
  });
});
