import { promptVersion } from '../tools/definition-hash.js';
import { parseJson } from '../util/values.js';
const SYSTEM_ROLES = new Set(['system', 'developer']);
/** A system message longer than this is not looked for (the scan stays bounded on any input). */
const MAX_SYSTEM_CHARS = 256 * 1024;
const isRec = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
/** The JSON text of the first element of a JSON array of objects, without parsing the rest. */
function firstElementText(s) {
    let i = 0;
    const skip = () => {
        while (i < s.length && (s[i] === ' ' || s[i] === '\n' || s[i] === '\r' || s[i] === '\t'))
            i++;
    };
    skip();
    if (s[i] !== '[')
        return undefined;
    i++;
    skip();
    if (s[i] !== '{')
        return undefined;
    const start = i;
    let depth = 0;
    const end = Math.min(s.length, start + MAX_SYSTEM_CHARS);
    for (; i < end; i++) {
        const ch = s.charCodeAt(i);
        if (ch === 0x22) {
            // A string: skip to its closing quote, escapes included.
            for (i++; i < end; i++) {
                const c = s.charCodeAt(i);
                if (c === 0x5c)
                    i++;
                else if (c === 0x22)
                    break;
            }
        }
        else if (ch === 0x7b || ch === 0x5b)
            depth++;
        else if (ch === 0x7d || ch === 0x5d) {
            depth--;
            if (depth === 0)
                return s.slice(start, i + 1);
        }
    }
    return undefined;
}
/** The version of the leading system message of an input-history attribute (JSON text or decoded list). */
export function systemMessageVersion(history) {
    let first;
    if (typeof history === 'string') {
        if (!history.includes('"system"') && !history.includes('"developer"'))
            return undefined;
        const text = firstElementText(history);
        first = text === undefined ? undefined : parseJson(text);
    }
    else if (Array.isArray(history))
        first = history[0];
    if (!isRec(first) || typeof first['role'] !== 'string' || !SYSTEM_ROLES.has(first['role']))
        return undefined;
    const body = first['parts'] ?? first['content'];
    if (typeof body === 'string')
        return promptVersion(body);
    if (body === undefined || body === null)
        return undefined;
    return promptVersion(JSON.stringify(body));
}
//# sourceMappingURL=system-message.js.map