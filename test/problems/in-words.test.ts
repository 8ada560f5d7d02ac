/**
 * A problem's signature in words (alert messages), over real signatures: real Ajv errors reduced by
 * signatureOf, every InvalidJson cause, an invented name, failed executions. Names are code segments.
 */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { plain, renderWords } from '../../src/alerts/problem-message.js';
import { problemInWords } from '../../src/problems/in-words.js';
import { INVALID_JSON_CAUSES, signatureOf, type SignatureInput } from '../../src/problems/signature.js';

const schema = {
  type: 'object',
  properties: {
    amount: { type: 'number', minimum: 0 },
    currency: { enum: ['EUR', 'USD'] },
    items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
    meta: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['amount'],
  additionalProperties: false,
};
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

function mismatch(args: unknown): SignatureInput {
  expect(validate(args)).toBe(false);
  return {
    kind: 'SchemaMismatch',
    service: 'shop',
    tool: 'refund_order',
    errors: validate.errors!,
    schema,
  } as SignatureInput;
}

const words = (input: SignatureInput) => renderWords(problemInWords(signatureOf(input)), plain);

describe('problems in words', () => {
  it.each([
    [{ currency: 'EUR' }, 'refund_order: `amount` is missing'],
    [{ amount: 'ten' }, 'refund_order: `amount` has the wrong type'],
    [{ amount: -1 }, 'refund_order: `amount` is out of range (minimum)'],
    [{ amount: 1, currency: 'GBP' }, 'refund_order: `currency` is not one of the allowed values'],
    [
      { amount: 1, items: [{}, { sku: 1 }] },
      'refund_order: `items[].sku` is missing, `items[].sku` has the wrong type',
    ],
    [{ amount: 1, meta: { anything: 3 } }, 'refund_order: `meta[]` has the wrong type'],
    [{ amount: 1, extra: true }, 'refund_order: an undeclared property'],
  ])('SchemaMismatch %j', (args, expected) => {
    expect(words(mismatch(args))).toBe(expected.replace(/^refund_order/, '`refund_order`'));
  });

  it('every InvalidJson cause has its own words', () => {
    const all = INVALID_JSON_CAUSES.map((cause) =>
      words({ kind: 'InvalidJson', service: 'shop', tool: 'lookup', cause }),
    );
    expect(new Set(all).size).toBe(INVALID_JSON_CAUSES.length);
    expect(words({ kind: 'InvalidJson', service: 'shop', tool: 'lookup', cause: 'truncated' })).toBe(
      '`lookup`: arguments cut off before the end (truncated: max tokens or the stream)',
    );
  });

  it.each([
    [{ kind: 'UnknownName', service: 's', name: 'Cancel_Order' }, '`cancel_order` called, a tool that was not offered'],
    [
      { kind: 'execution', service: 's', tool: 'pay', status: 'server_error', httpStatus: 503 },
      '`pay`: execution server_error (HTTP 503)',
    ],
    [
      { kind: 'execution', service: 's', tool: 'pay', status: 'error', errorType: 'TimeoutError' },
      '`pay`: execution error (`TimeoutError`)',
    ],
    [{ kind: 'execution', service: 's', tool: 'pay', status: 'client_error' }, '`pay`: execution client_error'],
  ] as [SignatureInput, string][])('%j', (input, expected) => {
    expect(words(input)).toBe(expected);
  });

  it('names are code segments, never words: a name cannot pose as text', () => {
    const w = problemInWords(signatureOf({ kind: 'UnknownName', service: 's', name: 'is missing' }));
    expect(w[0]).toEqual({ code: 'is missing' });
  });
});
