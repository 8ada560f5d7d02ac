/** Indices beyond this are not lists but junk; refusing them keeps a hostile key from costing much. */
const MAX_INDEX_DIGITS = 6;
function indexAfter(key, start) {
    let i = start;
    let n = 0;
    while (i < key.length) {
        const c = key.charCodeAt(i);
        if (c < 48 || c > 57)
            break;
        n = n * 10 + (c - 48);
        i++;
    }
    const digits = i - start;
    if (digits === 0 || digits > MAX_INDEX_DIGITS || key.charCodeAt(i) !== 46 /* . */)
        return undefined;
    return { index: n, restAt: i + 1 };
}
/** Groups `prefix.{i}.rest` keys of an attribute map or of an earlier group's fields, ordered by i. */
export function groupIndexed(source, prefix) {
    const p = prefix + '.';
    const byIndex = new Map();
    const add = (key, value) => {
        if (!key.startsWith(p))
            return;
        const at = indexAfter(key, p.length);
        if (!at)
            return;
        let fields = byIndex.get(at.index);
        if (!fields) {
            fields = new Map();
            byIndex.set(at.index, fields);
        }
        fields.set(key.slice(at.restAt), value);
    };
    if (source instanceof Map) {
        for (const [k, v] of source)
            add(k, v);
    }
    else {
        for (const k in source)
            add(k, source[k]);
    }
    const groups = [];
    for (const [index, fields] of byIndex)
        groups.push({ index, fields });
    return groups.sort((a, b) => a.index - b.index);
}
/** true when any key starts with `prefix.{digit}` — a cheap test for `matches()`. */
export function hasIndexed(a, prefix) {
    const p = prefix + '.';
    for (const k in a) {
        if (k.startsWith(p)) {
            const c = k.charCodeAt(p.length);
            if (c >= 48 && c <= 57)
                return true;
        }
    }
    return false;
}
/** A non-empty string field of a group. */
export function gstr(fields, key) {
    const v = fields.get(key);
    return typeof v === 'string' && v !== '' ? v : undefined;
}
//# sourceMappingURL=indexed.js.map