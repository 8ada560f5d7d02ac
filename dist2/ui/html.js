/**
 * HTML with escaping by default. `html\`…${value}…\`` escapes every interpolated value unless it is
 * already a SafeHtml (the result of another `html` template or of `raw`); arrays are joined, and
 * null, undefined and false render as nothing. Everything that came from a span goes through here.
 */
export class SafeHtml {
    value;
    constructor(value) {
        this.value = value;
    }
    toString() {
        return this.value;
    }
}
const ESCAPES = {
    '&': '&amp;',
    '<': '&lt;',
    '>': '&gt;',
    '"': '&quot;',
    "'": '&#39;',
    '`': '&#96;',
};
/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(text) {
    return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]);
}
function render(v) {
    if (v instanceof SafeHtml)
        return v.value;
    if (v === null || v === undefined || v === false)
        return '';
    if (Array.isArray(v))
        return v.map(render).join('');
    return escapeHtml(String(v));
}
export function html(strings, ...values) {
    let out = strings[0];
    for (let i = 0; i < values.length; i++)
        out += render(values[i]) + strings[i + 1];
    return new SafeHtml(out);
}
/** Trusted markup (constants written in this code base, never data). */
export function raw(markup) {
    return new SafeHtml(markup);
}
/** A relative URL with its query, each value percent-encoded (to be interpolated, and so HTML-escaped, in an attribute). */
export function href(path, query = {}) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query))
        if (v !== undefined && v !== '')
            q.set(k, String(v));
    const s = q.toString();
    return s ? `${path}?${s}` : path;
}
/** At most `max` UTF-16 units (never splitting a surrogate pair), with an ellipsis when cut. */
export function truncate(text, max) {
    if (text.length <= max)
        return text;
    const code = text.charCodeAt(max - 1);
    const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
    return `${text.slice(0, end)}…`;
}
//# sourceMappingURL=html.js.map