/**
 * JSON shown indented with the parts a schema error points at marked: each SchemaMismatch signature
 * part (`keyword path`, `*` for any index or open-ended name) marks the value at that path; a
 * `required` part marks the object the property is missing from and names it. Text that is not JSON
 * is shown as it is. Every key and value is escaped.
 */
import { html, raw } from './html.js';
const unescapeSegment = (s) => s.replace(/~1/g, '/').replace(/~0/g, '~');
/** The targets of a SchemaMismatch problem's parts. */
export function targetsOf(parts) {
    return parts.map((part) => {
        const space = part.indexOf(' ');
        const keyword = space < 0 ? part : part.slice(0, space);
        const path = space < 0 ? '/' : part.slice(space + 1);
        const segments = path === '/' || path === '' ? [] : path.slice(1).split('/').map(unescapeSegment);
        if (keyword === 'required' || keyword === 'dependentRequired' || keyword === 'dependencies') {
            const missing = segments.pop();
            return { segments, keyword, ...(missing !== undefined ? { missing } : {}) };
        }
        return { segments, keyword };
    });
}
const matches = (t, path) => t.segments.length === path.length && t.segments.every((s, i) => s === '*' || s === path[i]);
const MAX_DEPTH = 40;
function render(v, path, indent, targets) {
    const hits = targets.filter((t) => matches(t, path));
    const pad = '  '.repeat(indent + 1);
    const end = '  '.repeat(indent);
    let body;
    if (Array.isArray(v) && indent < MAX_DEPTH) {
        body = v.length
            ? html `[\n${v.map((x, i) => html `${pad}${render(x, [...path, String(i)], indent + 1, targets)}${i < v.length - 1 ? ',' : ''}\n`)}${end}]`
            : html `[]`;
    }
    else if (typeof v === 'object' && v !== null && indent < MAX_DEPTH) {
        const entries = Object.entries(v);
        body = entries.length
            ? html `{\n${entries.map(([k, x], i) => html `${pad}<span class="jk">${JSON.stringify(k)}</span>: ${render(x, [...path, k], indent + 1, targets)}${i < entries.length - 1 ? ',' : ''}\n`)}${end}}`
            : html `{}`;
    }
    else {
        body = html `${JSON.stringify(v)}`;
    }
    if (hits.length === 0)
        return body;
    const why = hits.map((t) => (t.missing !== undefined ? `${t.missing} is missing` : t.keyword)).join(', ');
    const note = html `<span class="hl-why"> ← ${why}</span>`;
    // A missing property is the object's fault, not its contents': only its opening brace is marked.
    if (hits.every((t) => t.missing !== undefined) && body.value.startsWith('{'))
        return html `<mark class="hl" title="${why}">{</mark>${raw(body.value.slice(1))}${note}`;
    return html `<mark class="hl" title="${why}">${body}</mark>${note}`;
}
/** `text` indented with the targets marked, or as it is when it is not JSON. */
export function jsonView(text, parts = []) {
    let value;
    try {
        value = JSON.parse(text);
    }
    catch {
        return html `<pre class="json raw">${text}</pre>`;
    }
    return html `<pre class="json">${render(value, [], 0, targetsOf(parts))}</pre>`;
}
/** A value (an offered schema) indented, nothing marked. */
export function valueView(value) {
    return html `<pre class="json">${JSON.stringify(value, null, 2) ?? 'null'}</pre>`;
}
//# sourceMappingURL=json-view.js.map