/**
 * Trajectory match with agentevals' modes, over the sequence of calls a conversation made:
 * - strict: the same calls in the same order (names, and arguments per the args mode);
 * - unordered: the same calls in any order;
 * - subset: every call made is one of the expected (nothing extra; some may be missing);
 * - superset: every expected call was made (extra calls allowed).
 * Tool arguments: exact (equal objects), ignore, subset (the call's arguments are a subset of the
 * expected ones), superset (they include every expected key and value), or a list of keys (dot
 * paths) compared alone; per-tool overrides win. Matching is greedy, as in agentevals.
 */
import { deepEqual } from './args.js';
const contains = (big, small) => Object.entries(small).every(([k, v]) => Object.hasOwn(big, k) && deepEqual(big[k], v));
function atPath(o, path) {
    let cur = o;
    for (const part of path.split('.')) {
        if (!cur || typeof cur !== 'object' || !Object.hasOwn(cur, part))
            return undefined;
        cur = cur[part];
    }
    return cur;
}
function matcherFor(mode) {
    if (mode === 'ignore')
        return () => true;
    return (out, ref) => {
        if (!out || !ref)
            return false;
        if (Array.isArray(mode))
            return mode.every((k) => deepEqual(atPath(out, k), atPath(ref, k)));
        if (mode === 'exact')
            return deepEqual(out, ref);
        if (mode === 'subset')
            return contains(ref, out);
        return contains(out, ref);
    };
}
/** Every call of `ref` finds its own call in `out` with the same name and matching arguments. */
function covers(out, ref, m) {
    const used = new Set();
    return ref.every((r) => {
        const i = out.findIndex((o, idx) => !used.has(idx) && o.name === r.name && m(r.name)(o.args, r.args));
        if (i < 0)
            return false;
        used.add(i);
        return true;
    });
}
export function matchTrajectory(e, made) {
    const m = (name) => matcherFor((Object.hasOwn(e.argsOverrides, name) ? e.argsOverrides[name] : undefined) ?? e.argsMode);
    const ref = e.calls.map((c) => ({ name: c.name, args: c.arguments }));
    let ok;
    if (e.match === 'strict')
        ok =
            made.length === ref.length && ref.every((r, i) => made[i].name === r.name && m(r.name)(made[i].args, r.args));
    else if (e.match === 'unordered')
        ok = covers(made, ref, m) && covers(ref, made, m);
    else if (e.match === 'subset')
        ok = covers(ref, made, m);
    else
        ok = covers(made, ref, m);
    if (ok)
        return { ok };
    const names = (l) => (l.length ? l.map((c) => c.name).join(' → ') : '(no calls)');
    return { ok, problem: `trajectory (${e.match}) expected ${names(ref)}, got ${names(made)}` };
}
//# sourceMappingURL=trajectory.js.map