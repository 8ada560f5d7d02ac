/**
 * JSON Schema → the subset Gemini's `functionDeclarations[].parameters` accepts (its `Schema`
 * object: a select subset of OpenAPI 3.0 — type in upper case, nullable, enum of strings, format,
 * description, title, properties, required, items, min/maxItems, min/maxLength, pattern,
 * minimum/maximum, min/maxProperties, anyOf, propertyOrdering, default, example). What does not fit is
 * rewritten where the meaning survives (`["string","null"]` → STRING + nullable, `const` → a
 * one-value enum, `oneOf` → anyOf, local `$ref` inlined) and dropped otherwise; every change is
 * listed (`path: what`) so the run records what the model was really shown. The checker still
 * validates calls against the suite's own schema, so a model is never judged by the weaker one.
 */
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Keys copied as they are (Gemini's Schema has them with the same meaning). */
const KEPT = new Set([
    'format',
    'title',
    'description',
    'nullable',
    'required',
    'minItems',
    'maxItems',
    'minLength',
    'maxLength',
    'pattern',
    'minimum',
    'maximum',
    'minProperties',
    'maxProperties',
    'propertyOrdering',
    'default',
    'example',
]);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
const MAX_REF_DEPTH = 8;
export function toGeminiSchema(schema) {
    const changes = [];
    const root = isObj(schema) ? schema : {};
    const out = convert(root, root, '$', changes, 0);
    return { schema: out, changes };
}
function resolveRef(ref, root) {
    const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
    if (!m)
        return undefined;
    const defs = root[m[1]];
    return isObj(defs) ? defs[decodeURIComponent(m[2]).replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
}
function convert(s, root, at, changes, depth) {
    if (typeof s.$ref === 'string') {
        const target = depth < MAX_REF_DEPTH ? resolveRef(s.$ref, root) : undefined;
        if (!isObj(target)) {
            changes.push(`${at}: $ref ${s.$ref} dropped (not a local definition, or recursive)`);
            return {};
        }
        changes.push(`${at}: $ref ${s.$ref} inlined`);
        const { $ref: _ref, ...rest } = s;
        return convert({ ...target, ...rest }, root, at, changes, depth + 1);
    }
    const out = {};
    for (const [k, v] of Object.entries(s)) {
        const p = `${at}.${k}`;
        if (k === 'type') {
            const types = (Array.isArray(v) ? v : [v]).filter((t) => typeof t === 'string' && TYPES.has(t));
            const nonNull = types.filter((t) => t !== 'null');
            if (types.length !== nonNull.length) {
                out.nullable = true;
                changes.push(`${p}: null written as nullable`);
            }
            if (nonNull.length === 1)
                out.type = nonNull[0].toUpperCase();
            else if (nonNull.length > 1) {
                out.anyOf = nonNull.map((t) => ({ type: t.toUpperCase() }));
                changes.push(`${p}: several types written as anyOf`);
            }
            else if (types.length === 1) {
                out.type = 'NULL';
            }
        }
        else if (k === 'properties' && isObj(v)) {
            out.properties = Object.fromEntries(Object.entries(v).map(([name, sub]) => [
                name,
                isObj(sub) ? convert(sub, root, `${p}.${name}`, changes, depth) : {},
            ]));
        }
        else if (k === 'items' && isObj(v)) {
            out.items = convert(v, root, p, changes, depth);
        }
        else if ((k === 'anyOf' || k === 'oneOf') && Array.isArray(v)) {
            out.anyOf = v.map((sub, i) => (isObj(sub) ? convert(sub, root, `${p}[${i}]`, changes, depth) : {}));
            if (k === 'oneOf')
                changes.push(`${p}: oneOf written as anyOf (exactly one is not expressible)`);
        }
        else if (k === 'enum' && Array.isArray(v)) {
            if (v.every((x) => typeof x === 'string'))
                out.enum = v;
            else
                changes.push(`${p}: dropped (Gemini enums are strings only)`);
        }
        else if (k === 'const') {
            if (typeof v === 'string') {
                out.enum = [v];
                changes.push(`${p}: written as a one-value enum`);
            }
            else
                changes.push(`${p}: dropped (only a string const fits an enum)`);
        }
        else if (KEPT.has(k)) {
            out[k] = v;
        }
        else if (k === '$defs' || k === 'definitions') {
            if (at !== '$')
                changes.push(`${p}: dropped`);
        }
        else if (k === '$schema' || k === '$id' || k === '$comment') {
            // Annotations of the document, not of the value: nothing is lost.
        }
        else {
            changes.push(`${p}: dropped (not in Gemini's Schema)`);
        }
    }
    // An enum needs its type; JSON Schema lets a bare enum stand alone.
    if (out.enum && out.type === undefined)
        out.type = 'STRING';
    return out;
}
//# sourceMappingURL=gemini-schema.js.map