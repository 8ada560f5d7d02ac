/**
 * Per-model request parameters (the OpenRouter article's harness): suite.yaml `models[].params`
 * and `--param key=value`, any request field — `reasoning: {effort: low}`, provider routing
 * (`provider: {require_parameters: true, order: [...], allow_fallbacks: false}`), `seed`, a
 * per-model `temperature` — merged into every request body of that model after what toolwatch
 * builds, recorded in the run manifest and (being in the body) in every raw request. The fields
 * toolwatch owns (model, messages, tools, …) cannot be set this way. Pure.
 */
/** Body fields the harness builds itself: a param may not replace them. */
export const RESERVED_PARAMS = ['model', 'messages', 'system', 'tools', 'tool_choice', 'stream', 'input', 'contents'];
/** Fields that limit output length: a cut-off call is InvalidJson that says nothing about tool choice. */
export const LENGTH_PARAMS = ['max_tokens', 'max_completion_tokens', 'max_output_tokens'];
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Problems of a params object (reserved keys). */
export function paramsProblems(params, where) {
    return Object.keys(params)
        .filter((k) => RESERVED_PARAMS.includes(k))
        .map((k) => `${where}.${k}: set by toolwatch itself (tool_choice variants: see docs/eval.md), not a param`);
}
/** `key=value` → a nested object; the value is JSON when it parses (true, 7, [..], {..}), else a string. */
export function parseParam(s) {
    const eq = s.indexOf('=');
    if (eq <= 0)
        return { ok: false, error: `--param ${JSON.stringify(s)}: must be key=value (dots for nested keys)` };
    const key = s.slice(0, eq).split('.');
    if (key.some((k) => !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(k)))
        return { ok: false, error: `--param ${JSON.stringify(s)}: the key must be names joined by dots` };
    const raw = s.slice(eq + 1);
    let value = raw;
    try {
        value = JSON.parse(raw);
    }
    catch {
        // a plain string
    }
    return { ok: true, key, value };
}
/** Deep merge of b into a (objects merged key by key; anything else replaced). */
export function mergeParams(a, b) {
    const out = { ...a };
    for (const [k, v] of Object.entries(b))
        out[k] = isObj(out[k]) && isObj(v) ? mergeParams(out[k], v) : v;
    return out;
}
/** The --param list as one params object. */
export function paramsFromFlags(flags) {
    let params = {};
    const problems = [];
    for (const f of flags) {
        const p = parseParam(f);
        if (!p.ok) {
            problems.push(p.error);
            continue;
        }
        const nested = p.key.reduceRight((v, k) => ({ [k]: v }), p.value);
        params = mergeParams(params, nested);
    }
    problems.push(...paramsProblems(params, '--param'));
    return { params, problems };
}
/** A warning per model that limits output length (suite max_tokens or a length param). */
export function lengthWarnings(models, suiteMaxTokens) {
    const out = [];
    for (const m of models) {
        const set = LENGTH_PARAMS.filter((k) => m.params && k in m.params);
        if (suiteMaxTokens !== undefined)
            set.unshift('max_tokens (suite.yaml)');
        if (set.length)
            out.push(`warning: ${m.label}: ${set.join(', ')} set — an answer cut off mid-call is InvalidJson that says nothing about tool choice; leave it unset to compare tool use`);
    }
    return out;
}
//# sourceMappingURL=params.js.map