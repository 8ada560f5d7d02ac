import { readMatcher } from './matchers.js';
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const fail = (error) => ({ ok: false, error });
// The words a case may use (README, "Case formats", lists each).
export const VALUE_MODES = ['exact', 'soft', 'ignore', 'judge', 'similar'];
export const TRAJECTORY_MODES = ['strict', 'unordered', 'subset', 'superset'];
export const ARGS_MODES = ['exact', 'ignore', 'subset', 'superset'];
export const ARGS_SPEC_KEYS = new Set(['requiredEquals', 'optional', 'constraints']);
export const CONSTRAINT_KEYS = ['integer', 'type', 'minimum', 'maximum', 'minLength', 'maxLength', 'enum', 'pattern'];
export const EXPECTED_KINDS = ['tool', 'text', 'clarification'];
export const TRAJECTORY_KEYS = new Set([
    'calls',
    'match',
    'trajectory_match_mode',
    'tool_args_match_mode',
    'tool_args_match_overrides',
]);
const CONSTRAINT_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
function readConstraint(v, where) {
    if (!isObj(v))
        return fail(`${where}: must be an object`);
    const c = {};
    for (const [k, x] of Object.entries(v)) {
        const at = `${where}.${k}`;
        if (k === 'integer') {
            if (typeof x !== 'boolean')
                return fail(`${at}: must be true or false`);
            c.integer = x;
        }
        else if (k === 'type') {
            if (typeof x !== 'string' || !CONSTRAINT_TYPES.includes(x))
                return fail(`${at}: must be one of ${CONSTRAINT_TYPES.join(', ')}`);
            c.type = x;
        }
        else if (k === 'minimum' || k === 'maximum') {
            if (typeof x !== 'number')
                return fail(`${at}: must be a number`);
            c[k] = x;
        }
        else if (k === 'minLength' || k === 'maxLength') {
            if (!Number.isInteger(x) || x < 0)
                return fail(`${at}: must be a non-negative integer`);
            c[k] = x;
        }
        else if (k === 'enum') {
            if (!Array.isArray(x))
                return fail(`${at}: must be an array`);
            c.enum = x;
        }
        else if (k === 'pattern') {
            if (typeof x !== 'string')
                return fail(`${at}: must be a regular expression`);
            try {
                new RegExp(x, 'u');
            }
            catch (err) {
                return fail(`${at}: not a valid regular expression (${err.message})`);
            }
            c.pattern = x;
        }
        else {
            return fail(`${at}: unknown constraint (known: ${CONSTRAINT_KEYS.join(', ')})`);
        }
    }
    return { ok: true, value: c };
}
function readModes(v, where) {
    if (v === undefined || v === null)
        return { ok: true, value: {} };
    if (!isObj(v))
        return fail(`${where}: must map argument names to ${VALUE_MODES.join(', ')}`);
    const out = {};
    for (const [k, m] of Object.entries(v)) {
        let spec;
        if (VALUE_MODES.includes(m))
            spec = { mode: m };
        else if (isObj(m) && Object.keys(m).length === 1 && 'similar' in m) {
            const t = m.similar;
            if (typeof t !== 'number' || !(t > 0 && t <= 1))
                return fail(`${where}.${k}.similar: a cosine similarity threshold above 0 and at most 1`);
            spec = { mode: 'similar', threshold: t };
        }
        else
            return fail(`${where}.${k}: must be one of ${VALUE_MODES.join(', ')} or {similar: threshold}, got ${JSON.stringify(m)}`);
        Object.defineProperty(out, k, { value: spec, enumerable: true, writable: true, configurable: true });
    }
    return { ok: true, value: out };
}
const check = (key, m, value) => ({
    key,
    mode: m?.mode ?? 'exact',
    value,
    ...(m?.threshold !== undefined ? { threshold: m.threshold } : {}),
});
/** `arguments` of a kind case's (or canonical) tool expectation: a plain object or the spec form. */
export function readArgs(v, modesRaw, extra, where, modesWhere) {
    const modes = readModes(modesRaw, modesWhere);
    if (!modes.ok)
        return modes;
    if (v === undefined || v === null) {
        if (Object.keys(modes.value).length)
            return fail(`${where}: match_mode names arguments but no expected values are given`);
        return { ok: true, value: undefined };
    }
    if (!isObj(v))
        return fail(`${where}: must be an object`);
    const keys = Object.keys(v);
    if (keys.length > 0 && keys.every((k) => ARGS_SPEC_KEYS.has(k)))
        return readSpec(v, modes.value, where);
    for (const k of Object.keys(modes.value)) {
        if (!(k in v) && modes.value[k].mode !== 'ignore')
            return fail(`${where}: match_mode names ${JSON.stringify(k)} but no expected value is given`);
    }
    const values = readValues(v, where);
    if (!values.ok)
        return values;
    return {
        ok: true,
        value: {
            checks: keys.map((key) => check(key, modes.value[key], values.value[key])),
            optional: Object.keys(modes.value).filter((k) => !(k in v)),
            constraints: {},
            extra,
            literal: values.value,
        },
    };
}
/** Expected values with their matchers (any_of, approx, optional) read; literals as written. */
function readValues(v, where) {
    const out = {};
    for (const [k, x] of Object.entries(v)) {
        const r = readMatcher(x, `${where}.${k}`);
        if (!r.ok)
            return r;
        out[k] = r.value;
    }
    return { ok: true, value: out };
}
function readSpec(v, modes, where) {
    const req = v.requiredEquals ?? {};
    if (!isObj(req))
        return fail(`${where}.requiredEquals: must be an object`);
    const optional = v.optional ?? [];
    if (!Array.isArray(optional) || !optional.every((k) => typeof k === 'string'))
        return fail(`${where}.optional: must be a list of argument names`);
    const rawConstraints = v.constraints ?? {};
    if (!isObj(rawConstraints))
        return fail(`${where}.constraints: must be an object`);
    const constraints = {};
    for (const [k, c] of Object.entries(rawConstraints)) {
        const r = readConstraint(c, `${where}.constraints.${k}`);
        if (!r.ok)
            return r;
        if (!(k in req) && !optional.includes(k))
            return fail(`${where}.constraints.${k}: not in requiredEquals or optional`);
        constraints[k] = r.value;
    }
    const values = readValues(req, `${where}.requiredEquals`);
    if (!values.ok)
        return values;
    return {
        ok: true,
        value: {
            checks: Object.entries(values.value).map(([key, value]) => check(key, modes[key], value)),
            optional: optional,
            constraints,
            extra: 'fail',
            literal: values.value,
        },
    };
}
function readToolCalls(list, where, callList) {
    const calls = [];
    for (const [i, c] of list.entries()) {
        const at = `${where}[${i}]`;
        if (!isObj(c) || typeof c.name !== 'string' || c.name === '')
            return fail(`${at}: needs a tool name`);
        const args = readArgs(c.arguments, callList ? undefined : c.match_mode, 'fail', `${at}.arguments`, `${at}.match_mode`);
        if (!args.ok)
            return args;
        calls.push({ name: c.name, ...(args.value ? { args: args.value } : {}) });
    }
    return { ok: true, value: calls };
}
/** `expected` as a call list (call-list cases) or an object with a kind (kind and canonical cases). */
export function readExpected(v) {
    if (Array.isArray(v)) {
        if (v.length === 0)
            return { ok: true, value: { kind: 'text' } };
        const calls = readToolCalls(v, 'expected', true);
        return calls.ok ? { ok: true, value: { kind: 'tool', calls: calls.value } } : calls;
    }
    if (!isObj(v))
        return fail('expected: must be a list of calls or an object with a kind');
    if (v.kind === 'text')
        return { ok: true, value: { kind: 'text' } };
    if (v.kind === 'clarification') {
        const missing = v.missing ?? [];
        if (!Array.isArray(missing) || !missing.every((m) => typeof m === 'string'))
            return fail('expected.missing: must be a list of argument names');
        return { ok: true, value: { kind: 'clarification', missing: missing } };
    }
    if (v.kind === 'tool') {
        if (Array.isArray(v.calls)) {
            const calls = readToolCalls(v.calls, 'expected.calls', false);
            return calls.ok ? { ok: true, value: { kind: 'tool', calls: calls.value } } : calls;
        }
        if (typeof v.name !== 'string' || v.name === '')
            return fail('expected: a tool expectation needs name (or calls)');
        const extra = v.extra_args === 'ignore' ? 'ignore' : 'fail';
        if (v.extra_args !== undefined && v.extra_args !== 'ignore' && v.extra_args !== 'fail')
            return fail('expected.extra_args: must be fail or ignore');
        const args = readArgs(v.arguments, v.match_mode, extra, 'expected.arguments', 'expected.match_mode');
        if (!args.ok)
            return args;
        return {
            ok: true,
            value: { kind: 'tool', calls: [{ name: v.name, ...(args.value ? { args: args.value } : {}) }] },
        };
    }
    return fail(`expected.kind: unknown kind ${JSON.stringify(v.kind)} (known: ${EXPECTED_KINDS.join(', ')})`);
}
/** An expected_tool case: expected_tool (null = no call), expected_args, match_mode. */
export function readExpectedTool(tool, args, modes) {
    if (tool === null) {
        if (args !== undefined && args !== null && !(isObj(args) && Object.keys(args).length === 0)) {
            return fail('expected_args: given, but expected_tool is null (no call expected)');
        }
        return { ok: true, value: { kind: 'text' } };
    }
    if (typeof tool !== 'string' || tool === '')
        return fail('expected_tool: must be a tool name or null');
    const spec = readArgs(args, modes, 'ignore', 'expected_args', 'match_mode');
    if (!spec.ok)
        return spec;
    return { ok: true, value: { kind: 'tool', calls: [{ name: tool, ...(spec.value ? { args: spec.value } : {}) }] } };
}
function readArgsMode(v, where) {
    if (typeof v === 'string' && ARGS_MODES.includes(v))
        return { ok: true, value: v };
    if (Array.isArray(v) && v.every((k) => typeof k === 'string'))
        return { ok: true, value: v };
    return fail(`${where}: must be one of ${ARGS_MODES.join(', ')} or a list of argument names`);
}
/** `expected_trajectory`: a list of calls, or an object with the calls and agentevals' modes. */
export function readTrajectory(v) {
    const obj = Array.isArray(v) ? { calls: v } : v;
    if (!isObj(obj) || !Array.isArray(obj.calls))
        return fail('expected_trajectory: must be a list of calls or {calls, match, …}');
    for (const k of Object.keys(obj))
        if (!TRAJECTORY_KEYS.has(k))
            return fail(`expected_trajectory.${k}: unknown key`);
    const calls = [];
    for (const [i, c] of obj.calls.entries()) {
        const fn = isObj(c) && isObj(c.function) ? c.function : c;
        if (!isObj(fn) || typeof fn.name !== 'string' || fn.name === '')
            return fail(`expected_trajectory.calls[${i}]: needs a tool name`);
        const args = fn.arguments ?? fn.args ?? {};
        if (!isObj(args))
            return fail(`expected_trajectory.calls[${i}].arguments: must be an object`);
        calls.push({ name: fn.name, arguments: args });
    }
    const match = obj.match ?? obj.trajectory_match_mode ?? 'strict';
    if (!TRAJECTORY_MODES.includes(match))
        return fail(`expected_trajectory.match: must be one of ${TRAJECTORY_MODES.join(', ')}`);
    const argsMode = readArgsMode(obj.tool_args_match_mode ?? 'exact', 'expected_trajectory.tool_args_match_mode');
    if (!argsMode.ok)
        return argsMode;
    const overrides = {};
    const rawOverrides = obj.tool_args_match_overrides ?? {};
    if (!isObj(rawOverrides))
        return fail('expected_trajectory.tool_args_match_overrides: must map tool names to modes');
    for (const [tool, m] of Object.entries(rawOverrides)) {
        const r = readArgsMode(m, `expected_trajectory.tool_args_match_overrides.${tool}`);
        if (!r.ok)
            return r;
        // defineProperty: a tool named `__proto__` is a key like any other (an assignment would set the prototype).
        Object.defineProperty(overrides, tool, { value: r.value, enumerable: true, writable: true, configurable: true });
    }
    return {
        ok: true,
        value: {
            kind: 'trajectory',
            calls,
            match: match,
            argsMode: argsMode.value,
            argsOverrides: overrides,
        },
    };
}
/** Every tool name an expectation refers to (each must be offered). */
export function expectedToolNames(e) {
    if (e.kind === 'tool')
        return e.calls.map((c) => c.name);
    if (e.kind === 'trajectory')
        return [...e.calls.map((c) => c.name), ...Object.keys(e.argsOverrides)];
    return [];
}
//# sourceMappingURL=case-expected.js.map