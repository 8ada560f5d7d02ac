/**
 * `uniqueItems` and `enum` in linear time. Ajv compares every pair of items for `uniqueItems` over
 * objects or arrays (10,000 small objects: about 2 s, an 8 MiB body: hours) and every allowed value
 * for `enum` (a long enum over a long array multiplies the two). Both are arguments-controlled, so
 * both are replaced by a hash of each value's canonical JSON (sorted keys: JSON Schema equality).
 * Errors keep Ajv's own keyword, message and params, so a failure reads as before.
 */
import { _, type Ajv, type CodeKeywordDefinition, type KeywordCxt, str } from 'ajv';
import { canonicalJson } from './canonical-json.js';

// A primitive's canonical JSON is its plain JSON (the replacer only sorts objects' keys), and
// JSON.stringify without a replacer is many times faster: most enum values are strings.
const key = (v: unknown): string =>
  (typeof v === 'object' && v !== null ? canonicalJson(v) : JSON.stringify(v)) ?? 'undefined';

/**
 * The pair Ajv reports for a duplicate — the highest index that repeats an earlier item, and the
 * latest earlier index equal to it — or null when every item is distinct.
 */
export function duplicatePair(items: readonly unknown[]): [number, number] | null {
  if (items.length < 2) return null;
  const seen = new Map<string, number>();
  let pair: [number, number] | null = null;
  for (let i = 0; i < items.length; i++) {
    const k = key(items[i]);
    const earlier = seen.get(k);
    if (earlier !== undefined) pair = [i, earlier];
    seen.set(k, i);
  }
  return pair;
}

/** An enum's allowed values as a set of canonical JSON texts. */
export function enumMatcher(allowed: readonly unknown[]): (v: unknown) => boolean {
  const keys = new Set(allowed.map(key));
  return (v) => keys.has(key(v));
}

const uniqueItems: CodeKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  error: {
    message: ({ params: { i, j } }) => str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
    params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
  },
  code(cxt: KeywordCxt) {
    const { gen, data, schema } = cxt;
    if (!schema) return;
    const find = gen.scopeValue('func', { ref: duplicatePair });
    const pair = gen.const('pair', _`${find}(${data})`);
    cxt.setParams({ i: _`${pair}[0]`, j: _`${pair}[1]` });
    cxt.fail(_`${pair} !== null`);
  },
};

const enumKeyword: CodeKeywordDefinition = {
  keyword: 'enum',
  schemaType: 'array',
  error: {
    message: 'must be equal to one of the allowed values',
    params: ({ schemaCode }) => _`{allowedValues: ${schemaCode}}`,
  },
  code(cxt: KeywordCxt) {
    const { gen, data, schema } = cxt;
    if (!Array.isArray(schema) || schema.length === 0) throw new Error('enum must have non-empty array');
    const matches = gen.scopeValue('func', { ref: enumMatcher(schema) });
    cxt.fail(_`!${matches}(${data})`);
  },
};

/** Replaces Ajv's own `uniqueItems` and `enum` (call before the instance compiles anything). */
export function useLinearKeywords(ajv: Ajv): Ajv {
  ajv.removeKeyword('uniqueItems');
  ajv.removeKeyword('enum');
  ajv.addKeyword(uniqueItems);
  ajv.addKeyword(enumKeyword);
  return ajv;
}
