/**
 * The signature of a failed call: the key a problem is filed under. Pure — no clock, store or I/O —
 * so every process, replica and version that sees the same failure computes the same key.
 *
 * A signature is a canonical string (a JSON array, `["tw1", outcome, service, tool, ...parts]`, parts
 * sorted and deduplicated) and its hash (the first 16 hex digits of its SHA-256). The canonical form is
 * versioned (`tw1`): changing any rule below means a new prefix, never a silent change of old keys.
 * What the model wrote (argument values, invented property names) is never part of it, and neither are
 * models, providers or definition versions — those are dimensions of a problem, not its identity.
 */
import { createHash } from 'node:crypto';
export { INVALID_JSON_CAUSES } from '../model.js';
export const SIGNATURE_VERSION = 'tw1';
export function signatureOf(input) {
    switch (input.kind) {
        case 'SchemaMismatch':
            return make(input.kind, input.service, input.tool, schemaMismatchParts(input.errors, input.schema));
        case 'UnknownName':
            return make(input.kind, input.service, foldName(input.name), []);
        case 'InvalidJson':
            return make(input.kind, input.service, input.tool, [input.cause]);
        case 'execution':
            return make(input.kind, input.service, input.tool, [input.status, executionDetail(input)]);
    }
}
function make(outcome, service, tool, parts) {
    const sorted = [...new Set(parts)].sort();
    const canonical = JSON.stringify([SIGNATURE_VERSION, outcome, service, tool, ...sorted]);
    const hash = createHash('sha256').update(canonical, 'utf8').digest('hex').slice(0, 16);
    return { hash, canonical, outcome, service, tool, parts: sorted };
}
/** An invented name, case-folded (NFKC, lower case, trimmed): `Get_Weather` and `get_weather ` are one problem. */
export function foldName(name) {
    return name.normalize('NFKC').trim().toLowerCase();
}
/**
 * The status's detail: `http:<code>` for an HTTP status, `type:<error.type>` when the type looks like
 * a type (an identifier or a dotted class name, at most 100 characters), `-` otherwise — a free-text
 * message would make one problem per message.
 */
function executionDetail(input) {
    const code = input.httpStatus;
    if (code !== undefined && Number.isInteger(code) && code >= 100 && code <= 599)
        return `http:${code}`;
    const type = input.errorType?.trim();
    if (type && /^[A-Za-z0-9_$][\w$.:-]{0,99}$/.test(type))
        return `type:${type}`;
    return '-';
}
/**
 * Each Ajv error reduced to `keyword path`. The path is the instance path with every array index and
 * every open-ended property name (one the schema does not declare under `properties`: matched by
 * `additionalProperties` or `patternProperties`) written `*`. `required` and `dependentRequired` add
 * the missing property (a name the schema declares) as a last segment, so the part says which field
 * is missing. Parameters that carry what the model wrote (`additionalProperty`,
 * `propertyName`, `unevaluatedProperty`, values, lengths) are left out.
 */
export function schemaMismatchParts(errors, schema) {
    return errors.map((e) => {
        let path = reducePath(e.instancePath, schema);
        const missing = e.params.missingProperty;
        if ((e.keyword === 'required' || e.keyword === 'dependentRequired' || e.keyword === 'dependencies') && missing)
            path += `/${escapeSegment(String(missing))}`;
        return `${e.keyword} ${path === '' ? '/' : path}`;
    });
}
/** The instance path with indices and open-ended names collapsed, walking the schema alongside. */
export function reducePath(instancePath, schema) {
    if (instancePath === '')
        return '';
    const segments = instancePath.slice(1).split('/').map(unescapeSegment);
    const root = schema;
    let nodes = schema === undefined ? undefined : [schema];
    const out = [];
    for (const seg of segments) {
        if (nodes === undefined) {
            // No schema at hand: only indices are known to be positions.
            out.push(/^\d+$/.test(seg) ? '*' : escapeSegment(seg));
            continue;
        }
        const step = childOf(expand(nodes, root), seg);
        out.push(step.declared ? escapeSegment(seg) : '*');
        nodes = step.children;
    }
    return `/${out.join('/')}`;
}
/** The node and every subschema that applies to the same instance (local `$ref`, combinators, if/then/else). */
function expand(nodes, root) {
    const out = [];
    const seen = new Set();
    const visit = (n, depth) => {
        if (!isObject(n) || seen.has(n) || depth > 16)
            return;
        seen.add(n);
        out.push(n);
        if (typeof n.$ref === 'string')
            visit(resolveRef(root, n.$ref), depth + 1);
        for (const k of ['allOf', 'anyOf', 'oneOf'])
            if (Array.isArray(n[k]))
                for (const s of n[k])
                    visit(s, depth + 1);
        for (const k of ['then', 'else'])
            visit(n[k], depth + 1);
    };
    for (const n of nodes)
        visit(n, 0);
    return out;
}
function childOf(nodes, seg) {
    const declared = [];
    const open = [];
    const index = /^\d+$/.test(seg) ? Number(seg) : undefined;
    for (const n of nodes) {
        const props = n.properties;
        if (isObject(props) && Object.hasOwn(props, seg))
            declared.push(props[seg]);
        if (index !== undefined) {
            const prefix = Array.isArray(n.prefixItems) ? n.prefixItems : Array.isArray(n.items) ? n.items : undefined;
            if (prefix && index < prefix.length)
                open.push(prefix[index]);
            else if (isObject(n.items))
                open.push(n.items);
            else if (isObject(n.additionalItems))
                open.push(n.additionalItems);
        }
        if (isObject(n.patternProperties))
            open.push(...Object.values(n.patternProperties));
        if (isObject(n.additionalProperties))
            open.push(n.additionalProperties);
    }
    // A property some branch declares keeps its name; anything else is a position or an open-ended name.
    return declared.length > 0 ? { declared: true, children: declared } : { declared: false, children: open };
}
function resolveRef(root, ref) {
    if (!ref.startsWith('#'))
        return undefined;
    if (ref === '#')
        return root;
    if (!ref.startsWith('#/'))
        return undefined;
    let node = root;
    for (const raw of ref.slice(2).split('/')) {
        const seg = unescapeSegment(decodeURIComponent(raw));
        if (!isObject(node) && !Array.isArray(node))
            return undefined;
        node = node[seg];
    }
    return node;
}
function isObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
}
function unescapeSegment(s) {
    return s.replace(/~1/g, '/').replace(/~0/g, '~');
}
function escapeSegment(s) {
    return s.replace(/~/g, '~0').replace(/\//g, '~1');
}
//# sourceMappingURL=signature.js.map