/**
 * Is a value a JSON Schema at all? JSON Schema ignores unknown keywords, so an object made only of
 * them — the arguments `{"query": "cake type"}` that several emitters put where a schema belongs,
 * a Bedrock `{"json": …}` envelope, `{"title": "x"}` — compiles and accepts everything. Such a value
 * must never make a call `valid`. This is the one place that decides it: the checker uses it for
 * every schema, the readers for attributes that hold a schema in some emitters and arguments in
 * others (OpenInference `tool.parameters`).
 */
const JSON_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
const str = (v) => typeof v === 'string';
const num = (v) => typeof v === 'number' && Number.isFinite(v);
const bool = (v) => typeof v === 'boolean';
const sub = (v) => isObj(v) || typeof v === 'boolean';
const subs = (v) => Array.isArray(v) && v.length > 0 && v.every(sub);
const map = (v) => isObj(v) && Object.values(v).every(sub);
const jsonType = (t) => typeof t === 'string' && JSON_TYPES.has(t);
const type = (v) => jsonType(v) || (Array.isArray(v) && v.length > 0 && v.every(jsonType));
const names = (v) => Array.isArray(v) && v.every(str);
/**
 * Keywords that constrain or structure an instance (draft-04 to 2020-12, applicators and `$ref`
 * included), each with the value type it must have: `{"type": "news"}` is an argument, not a
 * keyword. Pure annotations (`title`, `description`, `default`, `examples`, `$comment`,
 * `deprecated`, `readOnly`, `writeOnly`) are deliberately absent: a schema made only of them
 * constrains nothing, exactly like one made of unknown words.
 */
const SCHEMA_KEYWORDS = new Map([
    ['$schema', str],
    ['$ref', str],
    ['$dynamicRef', str],
    ['$recursiveRef', str],
    ['$id', str],
    ['$defs', map],
    ['definitions', map],
    ['type', type],
    ['enum', Array.isArray],
    ['const', () => true],
    ['properties', map],
    ['patternProperties', map],
    ['additionalProperties', sub],
    ['propertyNames', sub],
    ['required', names],
    ['minProperties', num],
    ['maxProperties', num],
    ['dependentRequired', isObj],
    ['dependentSchemas', map],
    ['dependencies', isObj],
    ['unevaluatedProperties', sub],
    ['items', (v) => sub(v) || subs(v)],
    ['prefixItems', subs],
    ['additionalItems', sub],
    ['contains', sub],
    ['minContains', num],
    ['maxContains', num],
    ['minItems', num],
    ['maxItems', num],
    ['uniqueItems', bool],
    ['unevaluatedItems', sub],
    ['allOf', subs],
    ['anyOf', subs],
    ['oneOf', subs],
    ['not', sub],
    ['if', sub],
    ['then', sub],
    ['else', sub],
    ['minimum', num],
    ['maximum', num],
    ['exclusiveMinimum', (v) => num(v) || bool(v)],
    ['exclusiveMaximum', (v) => num(v) || bool(v)],
    ['multipleOf', num],
    ['minLength', num],
    ['maxLength', num],
    ['pattern', str],
    ['format', str],
    ['contentMediaType', str],
    ['contentEncoding', str],
    ['contentSchema', sub],
]);
export function schemaShape(v) {
    if (v === true)
        return 'accepts-anything';
    if (v === false)
        return 'schema';
    if (!isObj(v))
        return 'not-a-schema';
    let keys = 0;
    for (const k in v) {
        keys++;
        if (SCHEMA_KEYWORDS.get(k)?.(v[k]))
            return 'schema';
    }
    return keys === 0 ? 'accepts-anything' : 'not-a-schema';
}
/**
 * For values that are a schema in some emitters and the call's arguments in others: only a value
 * with a known keyword is a schema. `{}` is not taken for one here — from such an attribute it is
 * far more often an empty argument object than a definition that accepts anything.
 */
export function looksLikeSchema(v) {
    return schemaShape(v) === 'schema';
}
//# sourceMappingURL=schema-shape.js.map