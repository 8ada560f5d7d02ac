/**
 * A problem's signature in words, for people: "`/amount` is missing", "arguments cut off (truncated)",
 * "answered HTTP 503". Built from the signature's parts only (src/problems/signature.ts), which never
 * carry what the model wrote; the tool and service names still come from spans and are escaped.
 */
import { html } from './html.js';
const KEYWORDS = {
    required: 'is missing',
    type: 'has the wrong type',
    enum: 'is not one of the allowed values',
    const: 'is not the allowed value',
    additionalProperties: 'has a property the schema does not declare',
    format: 'has the wrong format',
    pattern: 'does not match the pattern',
    minimum: 'is too small',
    maximum: 'is too large',
    minLength: 'is too short',
    maxLength: 'is too long',
    minItems: 'has too few items',
    maxItems: 'has too many items',
};
const CAUSES = {
    truncated: 'cut off (the model ran out of tokens, or the text ends inside a value)',
    concatenated: 'several JSON values glued together (a streaming or instrumentation fault)',
    python_literal: 'a Python literal, not JSON (single quotes, True/None)',
    trailing_text: 'JSON followed by other text',
    not_object: 'valid JSON that is not an object',
    empty: 'empty',
    other: 'not JSON',
};
const STATUSES = {
    client_error: 'the tool refused the call',
    server_error: 'the tool failed or was down',
    error: 'the execution failed',
    tool_error: 'the tool reported an error in a success',
};
/** One line per part (SchemaMismatch has one per reduced validation error). */
export function signatureWords(p) {
    if (p.id === '_other')
        return [html `other failures of this service (past the per-service bound of problems)`];
    switch (p.outcome) {
        case 'SchemaMismatch':
            return p.parts.map((part) => {
                const space = part.indexOf(' ');
                const keyword = space < 0 ? part : part.slice(0, space);
                const path = space < 0 ? '/' : part.slice(space + 1);
                const words = KEYWORDS[keyword];
                return words ? html `<code>${path}</code> ${words}` : html `<code>${path}</code> fails <code>${keyword}</code>`;
            });
        case 'UnknownName':
            return [html `calls a tool that was not offered: <code>${p.tool}</code>`];
        case 'InvalidJson':
            return p.parts.map((c) => html `arguments are ${CAUSES[c] ?? c} <span class="tag">${c}</span>`);
        case 'execution': {
            const [status = '', detail = '-'] = p.parts;
            const how = detail.startsWith('http:')
                ? html ` · HTTP ${detail.slice(5)}`
                : detail.startsWith('type:')
                    ? html ` · <code>${detail.slice(5)}</code>`
                    : '';
            return [html `${STATUSES[status] ?? status}${how}`];
        }
        default:
            return p.parts.map((part) => html `<code>${part}</code>`);
    }
}
/** The signature in one line: the tool, then what goes wrong. */
export function signatureLine(p) {
    const words = signatureWords(p);
    const tool = p.outcome === 'UnknownName' || p.id === '_other' ? '' : html `<code>${p.tool}</code>: `;
    return html `${tool}${words.map((w, i) => html `${i > 0 ? '; ' : ''}${w}`)}`;
}
//# sourceMappingURL=problem-words.js.map