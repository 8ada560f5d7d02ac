/**
 * The one checker: every call a model makes in an eval goes through production's classify
 * (InvalidJson → UnknownName → SchemaMismatch → valid, else unvalidated) with the tools offered in
 * that request, and the same Ajv settings and schema cache. Nothing here parses or judges on its own.
 */
import { classify } from '../check/classify.js';
import { ToolRegistry } from '../check/registry.js';
/** Eval requests always carry their definitions, so the registry is never consulted. */
const NO_REGISTRY = new ToolRegistry();
export const EVAL_SERVICE = 'eval';
/** The provider's raw value as production sees it: a string stays a string, anything else is structured. */
export function toToolArgs(v) {
    if (v === undefined)
        return { kind: 'none' };
    if (typeof v === 'string')
        return { kind: 'string', raw: v };
    return { kind: 'structured', value: v, raw: JSON.stringify(v) ?? String(v) };
}
export function checkCall(call, offered, schemas) {
    const args = toToolArgs(call.arguments);
    const outcome = classify({ name: call.name, args, service: EVAL_SERVICE, offered }, NO_REGISTRY, schemas);
    const checked = { ...call, outcome: outcome.outcome };
    if (outcome.outcome === 'InvalidJson')
        checked.detail = outcome.message;
    else if (outcome.outcome === 'SchemaMismatch')
        checked.detail = outcome.errors;
    else if (outcome.outcome === 'UnknownName')
        checked.detail = outcome.known;
    else if (outcome.outcome === 'unvalidated')
        checked.detail = outcome.reason;
    // The same parse as the checker's, for value matching afterwards. A nameless call is `no_name`
    // before its arguments are looked at, so they may still be broken here.
    if (outcome.outcome !== 'InvalidJson') {
        const value = args.kind === 'string' ? parseOrUndefined(args.raw) : args.kind === 'structured' ? args.value : undefined;
        if (value && typeof value === 'object' && !Array.isArray(value))
            checked.parsed = value;
    }
    return checked;
}
function parseOrUndefined(raw) {
    try {
        return JSON.parse(raw);
    }
    catch {
        return undefined;
    }
}
//# sourceMappingURL=check.js.map