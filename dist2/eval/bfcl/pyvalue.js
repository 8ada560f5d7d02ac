export function pyType(v) {
    if (v === null)
        return 'NoneType';
    if (typeof v === 'boolean')
        return 'bool';
    if (typeof v === 'string')
        return 'str';
    if (typeof v === 'bigint')
        return 'int';
    if (typeof v === 'number')
        return 'float';
    return Array.isArray(v) ? 'list' : 'dict';
}
export const isDict = (v) => v instanceof Map;
const numeric = (v) => typeof v === 'boolean' || typeof v === 'bigint' || typeof v === 'number';
/** Python's `==`. */
export function pyEq(a, b) {
    if (numeric(a) && numeric(b)) {
        const x = typeof a === 'boolean' ? (a ? 1n : 0n) : a;
        const y = typeof b === 'boolean' ? (b ? 1n : 0n) : b;
        if (typeof x === typeof y)
            return x === y;
        // An int equals a float when the float is that whole number, as in Python (never NaN or inf).
        const [i, f] = typeof x === 'bigint' ? [x, y] : [y, x];
        return Number.isInteger(f) && BigInt(f) === i;
    }
    if (a === null || b === null)
        return a === b;
    if (typeof a === 'string' || typeof b === 'string')
        return a === b;
    if (Array.isArray(a) || Array.isArray(b)) {
        if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length)
            return false;
        return a.every((x, i) => pyEq(x, b[i]));
    }
    if (isDict(a) && isDict(b)) {
        if (a.size !== b.size)
            return false;
        for (const [k, v] of a)
            if (!b.has(k) || !pyEq(v, b.get(k)))
                return false;
        return true;
    }
    return false;
}
/** Python's `x in list`. */
export const pyIn = (x, list) => list.some((e) => pyEq(x, e));
/** Python's `repr`-like text for error messages. */
export function pyRepr(v) {
    if (v === null)
        return 'None';
    if (typeof v === 'boolean')
        return v ? 'True' : 'False';
    if (typeof v === 'string')
        return `'${v}'`;
    if (typeof v === 'bigint')
        return v.toString();
    if (typeof v === 'number')
        return Number.isInteger(v) ? v.toFixed(1) : String(v);
    if (Array.isArray(v))
        return `[${v.map(pyRepr).join(', ')}]`;
    return `{${[...v].map(([k, x]) => `'${k}': ${pyRepr(x)}`).join(', ')}}`;
}
/** A value structured by JSON.parse (the Messages protocol's `input`): whole numbers become ints. */
export function fromJs(v) {
    if (v === null || v === undefined)
        return null;
    if (typeof v === 'boolean' || typeof v === 'string')
        return v;
    if (typeof v === 'number')
        return Number.isInteger(v) ? BigInt(v) : v;
    if (Array.isArray(v))
        return v.map(fromJs);
    if (typeof v === 'object')
        return new Map(Object.entries(v).map(([k, x]) => [k, fromJs(x)]));
    return String(v);
}
export class PyJsonError extends Error {
    name = 'PyJsonError';
}
/**
 * `json.loads` with its defaults: standard JSON plus NaN, Infinity and -Infinity, control
 * characters refused inside strings, a repeated key keeping its first place and last value.
 */
export function loadsPy(text) {
    let i = 0;
    const ws = () => {
        while (i < text.length && ' \t\n\r'.includes(text[i]))
            i++;
    };
    const err = (what) => {
        throw new PyJsonError(`${what} at char ${i}`);
    };
    const lit = (word, v) => {
        if (text.startsWith(word, i)) {
            i += word.length;
            return v;
        }
        return err('Expecting value');
    };
    const str = () => {
        i++; // opening quote
        let out = '';
        for (;;) {
            if (i >= text.length)
                err('Unterminated string');
            const ch = text[i];
            if (ch === '"') {
                i++;
                return out;
            }
            if (ch < ' ')
                err('Invalid control character');
            if (ch !== '\\') {
                out += ch;
                i++;
                continue;
            }
            const e = text[i + 1];
            const simple = {
                '"': '"',
                '\\': '\\',
                '/': '/',
                b: '\b',
                f: '\f',
                n: '\n',
                r: '\r',
                t: '\t',
            };
            if (e !== undefined && e in simple) {
                out += simple[e];
                i += 2;
            }
            else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
                out += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
                i += 6;
            }
            else
                err('Invalid \\escape');
        }
    };
    const num = () => {
        const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/.exec(text.slice(i));
        if (!m)
            return err('Expecting value');
        i += m[0].length;
        return m[2] === undefined && m[3] === undefined ? BigInt(m[0]) : Number(m[0]);
    };
    const value = () => {
        ws();
        const ch = text[i];
        if (ch === '{') {
            i++;
            const d = new Map();
            ws();
            if (text[i] === '}') {
                i++;
                return d;
            }
            for (;;) {
                ws();
                if (text[i] !== '"')
                    err('Expecting property name enclosed in double quotes');
                const k = str();
                ws();
                if (text[i] !== ':')
                    err("Expecting ':' delimiter");
                i++;
                d.set(k, value());
                ws();
                if (text[i] === ',') {
                    i++;
                    continue;
                }
                if (text[i] === '}') {
                    i++;
                    return d;
                }
                err("Expecting ',' delimiter");
            }
        }
        if (ch === '[') {
            i++;
            const a = [];
            ws();
            if (text[i] === ']') {
                i++;
                return a;
            }
            for (;;) {
                a.push(value());
                ws();
                if (text[i] === ',') {
                    i++;
                    continue;
                }
                if (text[i] === ']') {
                    i++;
                    return a;
                }
                err("Expecting ',' delimiter");
            }
        }
        if (ch === '"')
            return str();
        if (ch === 't')
            return lit('true', true);
        if (ch === 'f')
            return lit('false', false);
        if (ch === 'n')
            return lit('null', null);
        if (ch === 'N')
            return lit('NaN', Number.NaN);
        if (ch === 'I')
            return lit('Infinity', Number.POSITIVE_INFINITY);
        if (ch === '-' && text.startsWith('-Infinity', i))
            return lit('-Infinity', Number.NEGATIVE_INFINITY);
        return num();
    };
    const v = value();
    ws();
    if (i !== text.length)
        err('Extra data');
    return v;
}
/** Back to a JSON value (ints and floats become JS numbers), for toolwatch's own expectations. */
export function toJs(v) {
    if (typeof v === 'bigint')
        return Number(v);
    if (Array.isArray(v))
        return v.map(toJs);
    if (isDict(v))
        return Object.fromEntries([...v].map(([k, x]) => [k, toJs(x)]));
    return v;
}
//# sourceMappingURL=pyvalue.js.map