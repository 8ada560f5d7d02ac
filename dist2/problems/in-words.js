const MARK = '\u0000';
const mark = (s) => `${MARK}${s.replaceAll(MARK, '')}${MARK}`;
function wordsOf(marked) {
    return marked
        .split(MARK)
        .map((s, i) => (i % 2 === 1 ? { code: s } : { text: s }))
        .filter((w) => ('code' in w ? true : w.text !== ''));
}
const CAUSES = {
    truncated: 'arguments cut off before the end (truncated: max tokens or the stream)',
    concatenated: 'several JSON values glued together (concatenated)',
    python_literal: 'Python literals instead of JSON (python_literal)',
    trailing_text: 'text after the JSON arguments (trailing_text)',
    not_object: 'arguments are JSON but not an object (not_object)',
    empty: 'empty arguments (empty)',
    other: 'arguments are not valid JSON',
};
/** `/items/*\/sku` → `items[].sku`; the root → `(arguments)`. JSON Pointer escapes undone. */
function field(path) {
    if (path === '/' || path === '')
        return '(arguments)';
    return path
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce((out, seg) => (seg === '*' ? `${out}[]` : out ? `${out}.${seg}` : seg), '');
}
/** One reduced Ajv error (`keyword path`) in words. */
function schemaPart(part, code) {
    const space = part.indexOf(' ');
    const keyword = space < 0 ? part : part.slice(0, space);
    const path = space < 0 ? '/' : part.slice(space + 1);
    const f = code(field(path));
    switch (keyword) {
        case 'required':
        case 'dependentRequired':
        case 'dependencies':
            return `${f} is missing`;
        case 'type':
            return `${f} has the wrong type`;
        case 'additionalProperties':
        case 'unevaluatedProperties':
            return path === '/' ? 'an undeclared property' : `an undeclared property in ${f}`;
        case 'enum':
        case 'const':
            return `${f} is not one of the allowed values`;
        case 'format':
        case 'pattern':
            return `${f} does not match its ${keyword}`;
        case 'minimum':
        case 'maximum':
        case 'exclusiveMinimum':
        case 'exclusiveMaximum':
        case 'multipleOf':
            return `${f} is out of range (${keyword})`;
        case 'minLength':
        case 'maxLength':
        case 'minItems':
        case 'maxItems':
        case 'minProperties':
        case 'maxProperties':
            return `${f} has the wrong size (${keyword})`;
        default:
            return `${f} fails ${keyword}`;
    }
}
/** What fails, after the tool's name: `refund_order: `amount` is missing`. */
export function problemInWords(p) {
    return wordsOf(marked(p, mark));
}
function marked(p, code) {
    const tool = code(p.tool);
    switch (p.outcome) {
        case 'SchemaMismatch': {
            const shown = p.parts.slice(0, 3).map((x) => schemaPart(x, code));
            const more = p.parts.length > 3 ? ` and ${p.parts.length - 3} more` : '';
            return `${tool}: ${shown.join(', ') || 'arguments break the schema'}${more}`;
        }
        case 'InvalidJson':
            return `${tool}: ${CAUSES[p.parts[0] ?? 'other'] ?? CAUSES.other}`;
        case 'UnknownName':
            return `${tool} called, a tool that was not offered`;
        case 'execution': {
            // Parts are sorted: the status is the one without a `kind:` prefix.
            const detail = p.parts.find((x) => x.includes(':'));
            const status = p.parts.find((x) => !x.includes(':') && x !== '-');
            const how = detail?.startsWith('http:')
                ? ` (HTTP ${detail.slice(5)})`
                : detail?.startsWith('type:')
                    ? ` (${code(detail.slice(5))})`
                    : '';
            return `${tool}: execution ${status ?? 'failed'}${how}`;
        }
        default:
            return `${tool}: calls fail (${p.outcome})`;
    }
}
//# sourceMappingURL=in-words.js.map