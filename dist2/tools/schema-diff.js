import { canonicalDefinition } from './definition-hash.js';
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const json = (v) => JSON.stringify(v);
const same = (a, b) => json(a) === json(b);
const join = (path, name) => (path === '' ? name : `${path}.${name}`);
const MAX_DEPTH = 32;
/** Keywords walked into or compared on their own; every other differing keyword is a `keyword` change. */
const HANDLED = new Set(['properties', 'required', 'type', 'enum', 'description', 'items']);
function diffSchema(a, b, path, out, depth) {
    if (same(a, b))
        return;
    if (!isObj(a) || !isObj(b) || depth > MAX_DEPTH) {
        out.push({ kind: 'keyword', path, keyword: 'schema', from: a, to: b });
        return;
    }
    if (!same(a['description'], b['description'])) {
        out.push(describe('description', path, a['description'], b['description']));
    }
    if (!same(a['type'], b['type']))
        out.push({ kind: 'type', path, from: a['type'], to: b['type'] });
    diffEnum(a['enum'], b['enum'], path, out);
    diffProperties(a, b, path, out, depth);
    if (!same(a['items'], b['items'])) {
        if (a['items'] === undefined || b['items'] === undefined) {
            out.push({ kind: 'keyword', path, keyword: 'items', from: a['items'], to: b['items'] });
        }
        else {
            diffSchema(a['items'], b['items'], `${path}[]`, out, depth + 1);
        }
    }
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
        if (HANDLED.has(k) || same(a[k], b[k]))
            continue;
        out.push({ kind: 'keyword', path, keyword: k, from: a[k], to: b[k] });
    }
}
function describe(kind, path, from, to) {
    const c = { kind, path };
    if (typeof from === 'string' && from !== '')
        c.from = from;
    if (typeof to === 'string' && to !== '')
        c.to = to;
    return c;
}
function diffEnum(a, b, path, out) {
    if (same(a, b))
        return;
    const as = Array.isArray(a) ? a : [];
    const bs = Array.isArray(b) ? b : [];
    const aKeys = new Set(as.map(json));
    const bKeys = new Set(bs.map(json));
    out.push({
        kind: 'enum',
        path,
        added: bs.filter((v) => !aKeys.has(json(v))),
        removed: as.filter((v) => !bKeys.has(json(v))),
    });
}
function diffProperties(a, b, path, out, depth) {
    const ap = isObj(a['properties']) ? a['properties'] : {};
    const bp = isObj(b['properties']) ? b['properties'] : {};
    const ar = new Set(Array.isArray(a['required']) ? a['required'] : []);
    const br = new Set(Array.isArray(b['required']) ? b['required'] : []);
    const names = [...new Set([...Object.keys(ap), ...Object.keys(bp), ...ar, ...br])].sort();
    for (const name of names) {
        const p = join(path, name);
        const inA = name in ap;
        const inB = name in bp;
        if (!inA && inB)
            out.push({ kind: 'property_added', path: p });
        else if (inA && !inB)
            out.push({ kind: 'property_removed', path: p });
        if (!ar.has(name) && br.has(name))
            out.push({ kind: 'required_added', path: p });
        else if (ar.has(name) && !br.has(name))
            out.push({ kind: 'required_removed', path: p });
        if (inA && inB)
            diffSchema(ap[name], bp[name], p, out, depth + 1);
    }
}
/** The changes from one definition to the next, in a stable order (tool description first, then by path). */
export function diffDefinitions(from, to) {
    const a = canonicalDefinition(from);
    const b = canonicalDefinition(to);
    const out = [];
    if (a.name !== b.name)
        out.push({ kind: 'keyword', path: '', keyword: 'name', from: a.name, to: b.name });
    if (a.description !== b.description)
        out.push(describe('description', '', a.description, b.description));
    if (a.parameters === null || b.parameters === null) {
        if (!same(a.parameters, b.parameters)) {
            out.push({ kind: 'keyword', path: '', keyword: 'parameters', from: a.parameters, to: b.parameters });
        }
    }
    else {
        diffSchema(a.parameters, b.parameters, '', out, 0);
    }
    return out;
}
const quoted = (path) => `\`${path}\``;
const short = (v) => {
    const s = json(v) ?? 'nothing';
    return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};
/** One change as a short sentence, e.g. "`amount` became required". */
export function describeChange(c) {
    const where = c.path === '' ? 'the tool' : quoted(c.path);
    switch (c.kind) {
        case 'description':
            if (c.from === undefined)
                return `${where} got a description`;
            if (c.to === undefined)
                return `${where} lost its description`;
            return `${where}'s description changed`;
        case 'property_added':
            return `${where} was added`;
        case 'property_removed':
            return `${where} was removed`;
        case 'required_added':
            return `${where} became required`;
        case 'required_removed':
            return `${where} became optional`;
        case 'type':
            return `${where}'s type changed from ${short(c.from)} to ${short(c.to)}`;
        case 'enum': {
            const parts = [];
            if (c.added.length)
                parts.push(`gained ${c.added.map(short).join(', ')}`);
            if (c.removed.length)
                parts.push(`lost ${c.removed.map(short).join(', ')}`);
            return `${where}'s enum ${parts.length ? parts.join(' and ') : 'was reordered'}`;
        }
        case 'keyword':
            return `${where}'s ${c.keyword} changed from ${short(c.from)} to ${short(c.to)}`;
    }
}
//# sourceMappingURL=schema-diff.js.map