/** Finish reasons that say the response was cut at its token limit (OpenAI, Anthropic, Gemini, Bedrock, Vercel). */
const CUT_OFF = new Set([
    'length',
    'max_tokens',
    'max_output_tokens',
    'max_completion_tokens',
    'model_length',
    'token_limit',
]);
/** Whether a finish reason (any case) says the model stopped at its token limit. */
export function isCutOff(reason) {
    return CUT_OFF.has(reason.trim().toLowerCase());
}
/**
 * The first that applies: `not_object` (valid JSON, not an object), `empty` (nothing but
 * whitespace), `truncated` (a finish reason says the token limit was hit, or the text ends inside a
 * value), `concatenated` (a complete value followed by another: `{…}{…}`), `trailing_text` (a
 * complete value followed by anything else), `python_literal` (a single-quoted string or
 * `True`/`False`/`None` where JSON wants a value), else `other`.
 */
export function invalidJsonCause(raw, finishReasons) {
    const first = scan(raw, 0);
    if (first.kind === 'complete' && skipWs(raw, first.end) === raw.length)
        return 'not_object';
    if (skipWs(raw, 0) === raw.length)
        return 'empty';
    if (finishReasons?.some(isCutOff))
        return 'truncated';
    if (first.kind === 'eof')
        return 'truncated';
    if (first.kind === 'complete') {
        const next = scan(raw, first.end);
        return next.kind !== 'error' && startsContainer(raw, skipWs(raw, first.end)) ? 'concatenated' : 'trailing_text';
    }
    return isPythonLiteral(raw, first.at) ? 'python_literal' : 'other';
}
const startsContainer = (s, i) => s[i] === '{' || s[i] === '[';
function isPythonLiteral(s, at) {
    if (s[at] === "'")
        return true;
    return /^(?:True|False|None)\b/.test(s.slice(at, at + 6));
}
function skipWs(s, i) {
    while (i < s.length && (s[i] === ' ' || s[i] === '\n' || s[i] === '\r' || s[i] === '\t'))
        i++;
    return i;
}
/**
 * Reads one JSON value starting at `from` (after whitespace): where it ends, or that the text ended
 * inside it, or where it stopped being JSON. Iterative, so nesting depth cannot overflow the stack.
 */
function scan(s, from) {
    const stack = [];
    let i = skipWs(s, from);
    // 'value' = a value is expected; 'after' = a value just ended; 'key' = an object key (or `}`) is expected.
    let want = 'value';
    for (;;) {
        i = skipWs(s, i);
        if (i >= s.length)
            return { kind: 'eof' };
        const c = s[i];
        if (want === 'after') {
            const top = stack[stack.length - 1];
            if (top === undefined)
                return { kind: 'complete', end: i };
            if (c === ',') {
                want = top === '{' ? 'key' : 'value';
                i++;
            }
            else if ((c === '}' && top === '{') || (c === ']' && top === '[')) {
                stack.pop();
                i++;
                if (stack.length === 0)
                    return { kind: 'complete', end: i };
            }
            else
                return { kind: 'error', at: i };
            continue;
        }
        if (want === 'key' || want === 'first-key') {
            if (want === 'first-key' && c === '}') {
                stack.pop();
                i++;
                if (stack.length === 0)
                    return { kind: 'complete', end: i };
                want = 'after';
                continue;
            }
            if (c !== '"')
                return { kind: 'error', at: i };
            const end = stringEnd(s, i);
            if (end < 0)
                return end === -1 ? { kind: 'eof' } : { kind: 'error', at: -end - 2 };
            i = skipWs(s, end);
            if (i >= s.length)
                return { kind: 'eof' };
            if (s[i] !== ':')
                return { kind: 'error', at: i };
            i++;
            want = 'value';
            continue;
        }
        // A value.
        if (want === 'first-value' && c === ']') {
            stack.pop();
            i++;
            if (stack.length === 0)
                return { kind: 'complete', end: i };
            want = 'after';
            continue;
        }
        if (c === '{' || c === '[') {
            stack.push(c);
            want = c === '{' ? 'first-key' : 'first-value';
            i++;
            continue;
        }
        let end;
        if (c === '"')
            end = stringEnd(s, i);
        else if (c === '-' || (c >= '0' && c <= '9'))
            end = numberEnd(s, i);
        else
            end = literalEnd(s, i);
        if (end === -1)
            return { kind: 'eof' };
        if (end < 0)
            return { kind: 'error', at: -end - 2 };
        i = end;
        if (stack.length === 0)
            return { kind: 'complete', end: i };
        want = 'after';
    }
}
/** End of the string starting at `i` (past its quote); -1 when the text ends inside it, -(at+2) on an error. */
function stringEnd(s, i) {
    for (let j = i + 1; j < s.length; j++) {
        const c = s.charCodeAt(j);
        if (c === 0x22)
            return j + 1;
        if (c === 0x5c) {
            j++;
            if (j >= s.length)
                return -1;
        }
        else if (c < 0x20)
            return -(j + 2);
    }
    return -1;
}
function numberEnd(s, i) {
    let j = i;
    while (j < s.length && /[-+0-9.eE]/.test(s[j]))
        j++;
    const text = s.slice(i, j);
    if (j >= s.length && /^-?(?:\d+\.?\d*(?:[eE][-+]?\d*)?)?$/.test(text)) {
        // Ends with the text: cut in the middle unless it is already a whole number and a container is open.
        return /^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/.test(text) ? j : -1;
    }
    return /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$/.test(text) ? j : -(i + 2);
}
function literalEnd(s, i) {
    for (const word of ['true', 'false', 'null']) {
        const part = s.slice(i, i + word.length);
        if (part === word)
            return i + word.length;
        if (i + part.length === s.length && word.startsWith(part))
            return -1;
    }
    return -(i + 2);
}
//# sourceMappingURL=invalid-json-cause.js.map