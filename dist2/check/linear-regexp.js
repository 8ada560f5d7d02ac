/**
 * The regular-expression engine Ajv runs schema `pattern` and `patternProperties` with: RE2 (re2js,
 * a pure-JavaScript port), whose matching time is linear in the input, whatever the pattern. Schemas
 * arrive in spans, i.e. from anyone who can send spans, and a backtracking engine lets one pattern
 * such as `^(a+)+$` and thirty characters of input hold the event loop for seconds.
 *
 * JSON Schema patterns are ECMA-262 regular expressions (Ajv adds the `u` flag). A pattern is first
 * checked as such — only parsed by `new RegExp`, never run — so what JavaScript rejects is still a bad
 * schema; then it is translated to RE2 syntax with ECMA-262 meaning kept: `\s` and `.` as JavaScript
 * defines them, `\uXXXX` / `\u{…}` / `\cX` escapes, `[^]`, `[\b]`, long Unicode property names.
 * What RE2 cannot run in linear time — backreferences (`\1`, `\k<name>`), lookahead (`(?=…)`,
 * `(?!…)`), repeat counts over 1000 — is refused with UnsupportedPattern, so the schema becomes
 * `unvalidated` (`bad_schema`) with the reason, never a frozen process.
 */
import { RE2JS } from 're2js';
export class UnsupportedPattern extends Error {
    constructor(pattern, why) {
        super(`pattern ${JSON.stringify(pattern.length > 200 ? pattern.slice(0, 200) + '…' : pattern)} ${why}`);
        this.name = 'UnsupportedPattern';
    }
}
/**
 * Ajv's `code.regExp` engine. `code` names it for standalone code generation (which toolwatch does not
 * use); Ajv reads `ref` at run time.
 */
export const linearRegExp = Object.assign((pattern, flags) => {
    // Without `u`, `\u{41}` would mean 41 times `u`: the translation below assumes `u` mode.
    if (!flags.includes('u'))
        throw new Error('linearRegExp needs the u flag (Ajv option unicodeRegExp: true)');
    if (/[^iu]/.test(flags))
        throw new Error(`linearRegExp supports the flags i and u, got ${flags}`);
    // ECMA-262 syntax check: parsing is linear, and this RegExp is never executed.
    new RegExp(pattern, flags);
    const { source, lookbehind } = toRe2Syntax(pattern);
    let re;
    try {
        re = RE2JS.compile(source, (lookbehind ? RE2JS.LOOKBEHINDS : 0) | (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0));
    }
    catch (err) {
        throw new UnsupportedPattern(pattern, `cannot run in linear time: ${err.message}`);
    }
    const shown = `/${pattern}/${flags}`;
    return { test: (input) => re.test(input), toString: () => shown };
}, { code: 'linearRegExp' });
// ECMA-262 WhiteSpace and LineTerminator: what `\s` means in JavaScript (RE2's `\s` is ASCII only).
const SPACE_POINTS = [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff];
const SPACE_RANGES = mergeRanges([
    ...SPACE_POINTS.map((p) => [p, p]),
    [0x2000, 0x200a],
]);
const MAX_POINT = 0x10ffff;
const hex = (n) => `\\x{${n.toString(16)}}`;
const rangeText = (rs) => rs.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join('');
const SPACE_BODY = rangeText(SPACE_RANGES);
const NOT_SPACE_BODY = rangeText(complement(SPACE_RANGES));
// JavaScript's `.` excludes every line terminator; RE2's only \n.
const DOT = `[^${rangeText([
    [0x0a, 0x0a],
    [0x0d, 0x0d],
    [0x2028, 0x2029],
])}]`;
/** ECMA-262 long General_Category names → the short ones RE2 knows. */
const CATEGORY = {
    Letter: 'L',
    Cased_Letter: 'L',
    Uppercase_Letter: 'Lu',
    Lowercase_Letter: 'Ll',
    Titlecase_Letter: 'Lt',
    Modifier_Letter: 'Lm',
    Other_Letter: 'Lo',
    Mark: 'M',
    Combining_Mark: 'M',
    Nonspacing_Mark: 'Mn',
    Spacing_Mark: 'Mc',
    Enclosing_Mark: 'Me',
    Number: 'N',
    Decimal_Number: 'Nd',
    digit: 'Nd',
    Letter_Number: 'Nl',
    Other_Number: 'No',
    Punctuation: 'P',
    punct: 'P',
    Connector_Punctuation: 'Pc',
    Dash_Punctuation: 'Pd',
    Open_Punctuation: 'Ps',
    Close_Punctuation: 'Pe',
    Initial_Punctuation: 'Pi',
    Final_Punctuation: 'Pf',
    Other_Punctuation: 'Po',
    Symbol: 'S',
    Math_Symbol: 'Sm',
    Currency_Symbol: 'Sc',
    Modifier_Symbol: 'Sk',
    Other_Symbol: 'So',
    Separator: 'Z',
    Space_Separator: 'Zs',
    Line_Separator: 'Zl',
    Paragraph_Separator: 'Zp',
    Other: 'C',
    Control: 'Cc',
    cntrl: 'Cc',
    Format: 'Cf',
    Surrogate: 'Cs',
    Private_Use: 'Co',
    Unassigned: 'Cn',
};
/**
 * Rewrites an ECMA-262 (`u` flag) pattern that `new RegExp` accepted into RE2 syntax with the same
 * meaning for `test()`. Capturing groups become non-capturing (nothing reads them, and RE2 then runs
 * its fastest matcher). Throws UnsupportedPattern for what RE2 cannot express.
 */
export function toRe2Syntax(pattern) {
    let out = '';
    let lookbehind = false;
    let inClass = false;
    let i = 0;
    const n = pattern.length;
    while (i < n) {
        const ch = pattern[i];
        if (ch === '\\') {
            const { text, next } = escapeAt(pattern, i, inClass);
            out += text;
            i = next;
            continue;
        }
        if (inClass) {
            if (ch === ']')
                inClass = false;
            // RE2 reads `[:alpha:]` inside a class as a POSIX class; JavaScript as the characters.
            out += ch === '[' ? '\\[' : ch;
            i++;
            continue;
        }
        switch (ch) {
            case '[': {
                const negated = pattern[i + 1] === '^';
                const start = negated ? i + 2 : i + 1;
                if (pattern[start] === ']') {
                    // `[]` matches nothing, `[^]` any code point.
                    out += negated ? `[${hex(0)}-${hex(MAX_POINT)}]` : `[^${hex(0)}-${hex(MAX_POINT)}]`;
                    i = start + 1;
                }
                else {
                    out += negated ? '[^' : '[';
                    inClass = true;
                    i = start;
                }
                break;
            }
            case '.':
                out += DOT;
                i++;
                break;
            case '(': {
                const rest = pattern.slice(i + 1, i + 4);
                if (rest.startsWith('?:')) {
                    out += '(?:';
                    i += 3;
                }
                else if (rest.startsWith('?=') || rest.startsWith('?!')) {
                    throw new UnsupportedPattern(pattern, 'uses a lookahead, which a linear-time engine cannot run');
                }
                else if (rest.startsWith('?<=') || rest.startsWith('?<!')) {
                    out += `(${rest}`;
                    lookbehind = true;
                    i += 4;
                }
                else if (rest.startsWith('?<')) {
                    const close = pattern.indexOf('>', i);
                    out += '(?:';
                    i = close + 1;
                }
                else {
                    out += '(?:';
                    i++;
                }
                break;
            }
            default:
                out += ch;
                i++;
        }
    }
    return { source: out, lookbehind };
}
function escapeAt(p, at, inClass) {
    const c = p[at + 1] ?? '';
    switch (c) {
        case 'u':
            return unicodeEscape(p, at);
        case 'c':
            return { text: hex(p.charCodeAt(at + 2) % 32), next: at + 3 };
        case '0':
            return { text: hex(0), next: at + 2 };
        case 's':
            return { text: inClass ? SPACE_BODY : `[${SPACE_BODY}]`, next: at + 2 };
        case 'S':
            return { text: inClass ? NOT_SPACE_BODY : `[${NOT_SPACE_BODY}]`, next: at + 2 };
        case 'b':
            // Inside a class JavaScript's \b is a backspace; outside, a word boundary (as in RE2).
            return { text: inClass ? hex(8) : '\\b', next: at + 2 };
        case 'k':
            throw new UnsupportedPattern(p, 'uses a backreference (\\k<name>), which a linear-time engine cannot run');
        case 'p':
        case 'P':
            return property(p, at);
        default:
            if (c >= '1' && c <= '9') {
                throw new UnsupportedPattern(p, `uses a backreference (\\${c}), which a linear-time engine cannot run`);
            }
            // \d \D \w \W \B \t \n \r \f \v \xHH and escaped punctuation mean the same in RE2.
            return { text: `\\${c}`, next: at + 2 };
    }
}
function unicodeEscape(p, at) {
    if (p[at + 2] === '{') {
        const close = p.indexOf('}', at);
        return { text: hex(parseInt(p.slice(at + 3, close), 16)), next: close + 1 };
    }
    const unit = parseInt(p.slice(at + 2, at + 6), 16);
    // A surrogate pair written as two escapes is one code point in `u` mode.
    if (unit >= 0xd800 && unit <= 0xdbff && p.startsWith('\\u', at + 6)) {
        const low = parseInt(p.slice(at + 8, at + 12), 16);
        if (low >= 0xdc00 && low <= 0xdfff)
            return { text: hex(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00)), next: at + 12 };
    }
    return { text: hex(unit), next: at + 6 };
}
function property(p, at) {
    const close = p.indexOf('}', at);
    const body = p.slice(at + 3, close);
    const eq = body.indexOf('=');
    const [name, value] = eq < 0 ? ['', body] : [body.slice(0, eq), body.slice(eq + 1)];
    let re2;
    if (name === '' || name === 'General_Category' || name === 'gc')
        re2 = CATEGORY[value] ?? value;
    else if (name === 'Script' || name === 'sc')
        re2 = value;
    else
        throw new UnsupportedPattern(p, `uses the Unicode property ${name}, which the linear-time engine does not know`);
    return { text: `\\${p[at + 1]}{${re2}}`, next: close + 1 };
}
function mergeRanges(rs) {
    const sorted = [...rs].sort((a, b) => a[0] - b[0]);
    const out = [];
    for (const r of sorted) {
        const last = out.at(-1);
        if (last && r[0] <= last[1] + 1)
            last[1] = Math.max(last[1], r[1]);
        else
            out.push([r[0], r[1]]);
    }
    return out;
}
function complement(rs) {
    const out = [];
    let from = 0;
    for (const [a, b] of rs) {
        if (a > from)
            out.push([from, a - 1]);
        from = b + 1;
    }
    if (from <= MAX_POINT)
        out.push([from, MAX_POINT]);
    return out;
}
//# sourceMappingURL=linear-regexp.js.map