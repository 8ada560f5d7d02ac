/**
 * Argument values against the expectation. Pure, and never lenient about types: "750" is not 750,
 * nothing is coerced, repaired or defaulted. The `soft` match mode forgives only case, accents and
 * spacing in strings ("Novák" = "novak "); `judge` and `similar` ask (an LLM judge, an embeddings
 * endpoint) what soft equality cannot settle, through a lookup handed in.
 */
import { Matcher } from './matchers.js';
/** JSON equality: same types, same keys (any order), same values. */
export function deepEqual(a, b) {
    if (a === b)
        return true;
    if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object')
        return false;
    if (Array.isArray(a) !== Array.isArray(b))
        return false;
    if (Array.isArray(a)) {
        const bb = b;
        return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
    }
    const ao = a;
    const bo = b;
    const ak = Object.keys(ao);
    if (ak.length !== Object.keys(bo).length)
        return false;
    return ak.every((k) => Object.hasOwn(bo, k) && deepEqual(ao[k], bo[k]));
}
export function softText(s) {
    return s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}
/** Strings: case, accents and whitespace ignored. Anything else: exact. */
export function softEqual(expected, actual) {
    if (typeof expected === 'string' && typeof actual === 'string')
        return softText(expected) === softText(actual);
    return deepEqual(expected, actual);
}
function typeOf(v) {
    if (v === null)
        return 'null';
    if (Array.isArray(v))
        return 'array';
    if (typeof v === 'number' && Number.isInteger(v))
        return 'integer';
    return typeof v;
}
/** Problems of one value against its constraint (empty = satisfied). */
export function constraintProblems(key, v, c) {
    const p = [];
    const t = typeOf(v);
    if (c.integer && t !== 'integer')
        p.push(`${key}: must be an integer, got ${JSON.stringify(v)}`);
    if (c.type && !(t === c.type || (c.type === 'number' && t === 'integer')))
        p.push(`${key}: must be of type ${c.type}, got ${t}`);
    if (typeof v === 'number') {
        if (c.minimum !== undefined && v < c.minimum)
            p.push(`${key}: must be ≥ ${c.minimum}, got ${v}`);
        if (c.maximum !== undefined && v > c.maximum)
            p.push(`${key}: must be ≤ ${c.maximum}, got ${v}`);
    }
    else if (c.minimum !== undefined || c.maximum !== undefined) {
        p.push(`${key}: must be a number, got ${JSON.stringify(v)}`);
    }
    if (c.enum && !c.enum.some((e) => deepEqual(e, v)))
        p.push(`${key}: must be one of ${JSON.stringify(c.enum)}, got ${JSON.stringify(v)}`);
    if (c.pattern !== undefined && (typeof v !== 'string' || !new RegExp(c.pattern, 'u').test(v))) {
        p.push(`${key}: must match /${c.pattern}/, got ${JSON.stringify(v)}`);
    }
    if (c.minLength !== undefined || c.maxLength !== undefined) {
        const len = typeof v === 'string' ? [...v].length : -1;
        if (len < 0)
            p.push(`${key}: must be a string, got ${JSON.stringify(v)}`);
        else if ((c.minLength !== undefined && len < c.minLength) || (c.maxLength !== undefined && len > c.maxLength)) {
            p.push(`${key}: length ${len} outside ${c.minLength ?? 0}…${c.maxLength ?? '∞'}`);
        }
    }
    return p;
}
/**
 * A judge or similar check: soft equality first (nothing is asked for what it settles), then the
 * lookup; a value the lookup cannot answer yet stays pending and fails.
 */
function askedMatch(c, actual, ask, out) {
    const mode = c.mode;
    const base = { key: c.key, mode, expected: c.value, actual };
    let r;
    if (softEqual(c.value, actual))
        r = { status: 'equal', match: true };
    else if (!ask)
        r = { status: 'pending', match: null };
    else
        r = ask({ ...base, ...(c.threshold !== undefined ? { threshold: c.threshold } : {}) });
    out?.push({ ...base, ...r });
    return r.match === true;
}
/**
 * Every way the actual arguments miss the spec; empty = they match. `ask` answers judge and similar
 * checks (without it they are pending); `matches` collects how each of those was settled.
 */
export function argsProblems(spec, actual, ask, matches) {
    const p = [];
    const has = (k) => Object.hasOwn(actual, k);
    const named = new Set(spec.optional);
    for (const c of spec.checks) {
        named.add(c.key);
        if (c.mode === 'ignore')
            continue;
        const m = c.value instanceof Matcher ? c.value : undefined;
        if (!has(c.key)) {
            if (!m?.optional)
                p.push(`${c.key}: missing (expected ${JSON.stringify(c.value)})`);
            continue;
        }
        if ((c.mode === 'judge' || c.mode === 'similar') && !m) {
            const before = matches?.length ?? 0;
            const local = [];
            if (!askedMatch(c, actual[c.key], ask, local)) {
                const r = local[0];
                const why = r.status === 'pending'
                    ? `no ${c.mode} verdict yet`
                    : r.status === 'invalid'
                        ? 'the judge gave no valid verdict'
                        : r.score !== undefined
                            ? `similarity ${r.score} < ${r.threshold}`
                            : 'the judge found it different';
                p.push(`${c.key}: expected ${JSON.stringify(c.value)} (${c.mode}: ${why}), got ${JSON.stringify(actual[c.key])}`);
            }
            if (matches && matches.length === before)
                matches.push(...local);
            continue;
        }
        const ok = m
            ? m.matches(actual[c.key], c.mode)
            : c.mode === 'soft'
                ? softEqual(c.value, actual[c.key])
                : deepEqual(c.value, actual[c.key]);
        if (!ok)
            p.push(`${c.key}: expected ${JSON.stringify(c.value)}${c.mode === 'soft' ? ' (soft)' : ''}, got ${JSON.stringify(actual[c.key])}`);
    }
    for (const [k, c] of Object.entries(spec.constraints))
        if (has(k))
            p.push(...constraintProblems(k, actual[k], c));
    if (spec.extra === 'fail') {
        for (const k of Object.keys(actual))
            if (!named.has(k))
                p.push(`${k}: unexpected argument`);
    }
    return p;
}
/**
 * The exact-match comparison: the literal object, except that a matcher value (any_of, approx,
 * optional) is applied as written — an alternative or a number within tolerance is as literal as
 * the case allows; no match mode is applied.
 */
export function literalEqual(literal, actual) {
    for (const [k, v] of Object.entries(literal)) {
        if (!Object.hasOwn(actual, k)) {
            if (v instanceof Matcher && v.optional)
                continue;
            return false;
        }
        if (v instanceof Matcher ? !v.matches(actual[k]) : !deepEqual(v, actual[k]))
            return false;
    }
    return Object.keys(actual).every((k) => Object.hasOwn(literal, k));
}
//# sourceMappingURL=args.js.map