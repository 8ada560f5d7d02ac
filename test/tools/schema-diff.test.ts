/** The readable definition diff (src/tools/schema-diff.ts). */
import { describe, expect, it } from 'vitest';
import type { ToolDef } from '../../src/model.js';
import { describeChange, diffDefinitions, type SchemaChange } from '../../src/tools/schema-diff.js';

const v3: ToolDef = {
  name: 'refund_order',
  description: 'Refund an order.',
  parameters: {
    type: 'object',
    properties: {
      order_id: { type: 'string' },
      amount: { type: 'number' },
      reason: { type: 'string', enum: ['damaged', 'late'] },
      address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['order_id'],
  },
};
const props = (v3.parameters as { properties: Record<string, unknown> }).properties;
const withParams = (p: Record<string, unknown>): ToolDef => ({
  ...v3,
  parameters: { ...(v3.parameters as object), ...p },
});

const cases: [string, ToolDef, SchemaChange[], string[]][] = [
  [
    'a property became required',
    withParams({ required: ['order_id', 'amount'] }),
    [{ kind: 'required_added', path: 'amount' }],
    ['`amount` became required'],
  ],
  [
    'a property became optional',
    withParams({ required: [] }),
    [{ kind: 'required_removed', path: 'order_id' }],
    ['`order_id` became optional'],
  ],
  [
    'a property added (and required), one removed',
    withParams({
      properties: { ...props, currency: { type: 'string' }, tags: undefined },
      required: ['order_id', 'currency'],
    }),
    [
      { kind: 'property_added', path: 'currency' },
      { kind: 'required_added', path: 'currency' },
      { kind: 'property_removed', path: 'tags' },
    ],
    ['`currency` was added', '`currency` became required', '`tags` was removed'],
  ],
  [
    'enum values gained and lost',
    withParams({ properties: { ...props, reason: { type: 'string', enum: ['late', 'other'] } } }),
    [{ kind: 'enum', path: 'reason', added: ['other'], removed: ['damaged'] }],
    ['`reason`\'s enum gained "other" and lost "damaged"'],
  ],
  [
    'a type changed',
    withParams({ properties: { ...props, amount: { type: 'integer' } } }),
    [{ kind: 'type', path: 'amount', from: 'number', to: 'integer' }],
    ['`amount`\'s type changed from "number" to "integer"'],
  ],
  [
    'the tool description changed',
    { ...v3, description: 'Refund an order; amount in cents.' },
    [{ kind: 'description', path: '', from: 'Refund an order.', to: 'Refund an order; amount in cents.' }],
    ["the tool's description changed"],
  ],
  [
    'a property got a description',
    withParams({ properties: { ...props, amount: { type: 'number', description: 'in cents' } } }),
    [{ kind: 'description', path: 'amount', to: 'in cents' }],
    ['`amount` got a description'],
  ],
  [
    'nested: a required field of an object property, an items type',
    withParams({
      properties: {
        ...props,
        address: {
          type: 'object',
          properties: { city: { type: 'string' }, zip: { type: 'string' } },
          required: ['city', 'zip'],
        },
        tags: { type: 'array', items: { type: 'integer' } },
      },
    }),
    [
      { kind: 'property_added', path: 'address.zip' },
      { kind: 'required_added', path: 'address.zip' },
      { kind: 'type', path: 'tags[]', from: 'string', to: 'integer' },
    ],
    ['`address.zip` was added', '`address.zip` became required', '`tags[]`\'s type changed from "string" to "integer"'],
  ],
  [
    'another keyword',
    withParams({ properties: { ...props, amount: { type: 'number', minimum: 0 } }, additionalProperties: false }),
    [
      { kind: 'keyword', path: 'amount', keyword: 'minimum', to: 0 },
      { kind: 'keyword', path: '', keyword: 'additionalProperties', to: false },
    ],
    ["`amount`'s minimum changed from nothing to 0", "the tool's additionalProperties changed from nothing to false"],
  ],
];

describe('definition diff', () => {
  it.each(cases)('%s', (_label, next, changes, sentences) => {
    const got = diffDefinitions(v3, next);
    expect(got).toEqual(changes);
    expect(got.map(describeChange)).toEqual(sentences);
  });

  it('nothing changed: key order, required order and shape are not changes', () => {
    const same: ToolDef = {
      parameters: { required: ['order_id'], properties: { ...props }, type: 'object' },
      description: '  Refund an   order. ',
      name: 'refund_order',
    };
    expect(diffDefinitions(v3, same)).toEqual([]);
  });

  it('a schema added or dropped is one change', () => {
    expect(diffDefinitions({ name: 'x' }, { name: 'x', parameters: { type: 'object' } })).toEqual([
      { kind: 'keyword', path: '', keyword: 'parameters', from: null, to: { type: 'object' } },
    ]);
  });
});
