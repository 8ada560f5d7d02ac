/**
 * Expected argument values that are more than one literal, usable in every case format:
 * `{"any_of": [a, b, …]}` (any alternative passes), `{"approx": x, "tolerance": t}` (a number
 * within ±t), either with `"optional": true` (the argument may also be omitted), and
 * `{"optional": true}` alone (may be omitted, any value when given). Read once when the case
 * loads into a Matcher, so a literal object argument is never mistaken for one at match time.
 */
import { deepEqual, softEqual } from './args.js';
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
export class Matcher {
    form;
    optional;
    written;
    constructor(form, optional, 
    /** As written in the case (reports show it). */
    written) {
        this.form = form;
        this.optional = optional;
        this.written = written;
    }
    matches(actual, mode = 'exact') {
        const f = this.form;
        if (f.kind === 'any')
            return true;
        if (f.kind === 'approx')
            return typeof actual === 'number' && Math.abs(actual - f.approx) <= f.tolerance;
        return f.alternatives.some((a) => a instanceof Matcher ? a.matches(actual, mode) : mode === 'soft' ? softEqual(a, actual) : deepEqual(a, actual));
    }
    /** Literal values this matcher accepts as written (for checking them against the tool's schema). */
    examples() {
        const f = this.form;
        if (f.kind === 'approx')
            return [f.approx];
        if (f.kind === 'any_of')
            return f.alternatives.flatMap((a) => (a instanceof Matcher ? a.examples() : [a]));
        return [];
    }
    toJSON() {
        return this.written;
    }
}
export const MATCHER_KEYS = ['any_of', 'approx', 'tolerance', 'optional'];
/**
 * A Matcher when `v` is written as one, the value itself when it is a plain literal, or an error
 * when it uses the matcher keys wrongly. An object is a matcher when it has `any_of` or `approx`,
 * or is exactly `{"optional": true}`; any other object is a literal.
 */
export function readMatcher(v, where) {
    if (!isObj(v))
        return { ok: true, value: v };
    const keys = Object.keys(v);
    const isMatcher = 'any_of' in v || 'approx' in v || (keys.length === 1 && v.optional === true);
    if (!isMatcher)
        return { ok: true, value: v };
    for (const k of keys)
        if (!MATCHER_KEYS.includes(k))
            return { ok: false, error: `${where}.${k}: unknown key of a value matcher (known: ${MATCHER_KEYS.join(', ')})` };
    if (v.optional !== undefined && typeof v.optional !== 'boolean')
        return { ok: false, error: `${where}.optional: must be true or false` };
    const optional = v.optional === true;
    if ('any_of' in v && 'approx' in v)
        return { ok: false, error: `${where}: any_of and approx cannot be combined` };
    if ('any_of' in v) {
        if ('tolerance' in v)
            return { ok: false, error: `${where}.tolerance: only with approx` };
        if (!Array.isArray(v.any_of) || v.any_of.length === 0)
            return { ok: false, error: `${where}.any_of: must be a non-empty list of acceptable values` };
        const alternatives = [];
        for (const [i, a] of v.any_of.entries()) {
            const r = readMatcher(a, `${where}.any_of[${i}]`);
            if (!r.ok)
                return r;
            if (r.value instanceof Matcher && r.value.optional)
                return { ok: false, error: `${where}.any_of[${i}]: optional belongs on the outer matcher` };
            alternatives.push(r.value);
        }
        return { ok: true, value: new Matcher({ kind: 'any_of', alternatives }, optional, v) };
    }
    if ('approx' in v) {
        if (typeof v.approx !== 'number' || !Number.isFinite(v.approx))
            return { ok: false, error: `${where}.approx: must be a number` };
        if (typeof v.tolerance !== 'number' || !(v.tolerance >= 0))
            return { ok: false, error: `${where}.tolerance: approx needs a tolerance ≥ 0` };
        return { ok: true, value: new Matcher({ kind: 'approx', approx: v.approx, tolerance: v.tolerance }, optional, v) };
    }
    return { ok: true, value: new Matcher({ kind: 'any' }, true, v) };
}
//# sourceMappingURL=matchers.js.map