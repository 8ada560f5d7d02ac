/**
 * The signature cache gives signatureOf's answer, always: over real Ajv errors (the project's checker)
 * against a schema with declared, open-ended (additionalProperties, patternProperties) and $ref'd
 * properties, the same errors against another schema object, without a schema and with `true`, and
 * the other outcomes — asked twice each, so the second answer comes from the cache.
 */
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/check/classify.js';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import type { ToolDef, ValidationError } from '../../src/model.js';
import { SignatureCache } from '../../src/problems/signature-cache.js';
import { signatureOf, type SignatureInput } from '../../src/problems/signature.js';

const declared: ToolDef = {
  name: 'create_order',
  parameters: {
    type: 'object',
    properties: {
      amount: { type: 'number' },
      metadata: { type: 'object', additionalProperties: { type: 'object', required: ['v'] } },
      address: { $ref: '#/$defs/address' },
    },
    required: ['amount'],
    $defs: { address: { type: 'object', properties: { zip: { type: 'string' } }, required: ['zip'] } },
  },
};
// The same property names, but `metadata`'s children declared: `/metadata/k` keeps its name here.
const other: ToolDef = {
  name: 'create_order',
  parameters: {
    type: 'object',
    properties: {
      amount: { type: 'number' },
      metadata: { type: 'object', properties: { k: { type: 'object', required: ['v'] } } },
      address: { type: 'object', required: ['zip'] },
    },
    required: ['amount'],
  },
};

function errorsOf(raw: string, def: ToolDef): ValidationError[] {
  const out = classify(
    { name: def.name, args: { kind: 'string', raw }, service: 'shop', offered: [def] },
    new ToolRegistry(),
    new SchemaCache(),
  );
  if (out.outcome !== 'SchemaMismatch') throw new Error(`expected SchemaMismatch, got ${out.outcome}`);
  return out.errors;
}

const broken = ['{}', '{"amount":"x"}', '{"amount":1,"metadata":{"k":{}}}', '{"amount":1,"address":{}}'];

describe('the signature cache', () => {
  it('answers as signatureOf does, for every input, the first time and from the cache', () => {
    const inputs: SignatureInput[] = [];
    for (const raw of broken)
      for (const def of [declared, other]) {
        const errors = errorsOf(raw, def);
        for (const schema of [def.parameters, declared.parameters, other.parameters, undefined, true])
          inputs.push({ kind: 'SchemaMismatch', service: 'shop', tool: 'create_order', errors, schema });
      }
    inputs.push(
      { kind: 'UnknownName', service: 'shop', name: 'Cancel_Order' },
      { kind: 'UnknownName', service: 'shop', name: 'cancel_order' },
      { kind: 'InvalidJson', service: 'shop', tool: 'create_order', cause: 'truncated' },
      { kind: 'InvalidJson', service: 'shop', tool: 'create_order', cause: 'concatenated' },
      { kind: 'execution', service: 'shop', tool: 't', status: 'server_error', httpStatus: 503 },
      { kind: 'execution', service: 'shop', tool: 't', status: 'server_error', errorType: 'Timeout' },
      { kind: 'execution', service: 'shop', tool: 't', status: 'server_error' },
    );
    const cache = new SignatureCache(5); // small: it starts over on the way, and must still be right
    for (let round = 0; round < 2; round++) for (const x of inputs) expect(cache.of(x)).toEqual(signatureOf(x));
    // The schema decides: an open-ended name is `*` under `declared`, kept under `other`.
    const meta = errorsOf('{"amount":1,"metadata":{"k":{}}}', declared);
    const under = (schema: unknown) =>
      cache.of({ kind: 'SchemaMismatch', service: 'shop', tool: 'create_order', errors: meta, schema }).parts;
    expect(under(declared.parameters)).toEqual(['required /metadata/*/v']);
    expect(under(other.parameters)).toEqual(['required /metadata/k/v']);
  });
});
