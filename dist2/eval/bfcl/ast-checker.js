/**
 * BFCL's AST checker for Python categories, rule for rule (bfcl_eval/eval_checker/ast_eval/
 * ast_checker.py at gorilla 6ea57973): the same type mapping, the same string standardisation, the
 * same acceptable-value lists with `""` meaning "may be omitted", the same dict and list-of-dict
 * rules and the same greedy pairing of parallel calls. Values are Python values (pyvalue.ts), so
 * bool ≠ int and 5.0 ≠ 5 for an integer exactly as there. Where BFCL's code would raise (a shape its
 * data never has), the entry is counted invalid with the error `checker_error`.
 */
import { isDict, pyEq, pyIn, pyRepr, pyType } from './pyvalue.js';
const PYTHON_TYPE = {
    string: 'str',
    integer: 'int',
    float: 'float',
    boolean: 'bool',
    array: 'list',
    tuple: 'list',
    dict: 'dict',
    any: 'str',
};
const NESTED = new Set(['array', 'tuple']);
const ok = () => ({ valid: true, error: [], errorType: '' });
const bad = (errorType, error) => ({ valid: false, error: [error], errorType });
class CheckerCrash extends Error {
}
/** What iterating a value gives in Python (`for x in v`), for the shapes the checker iterates. */
function iter(v) {
    if (Array.isArray(v))
        return v;
    if (typeof v === 'string')
        return [...v];
    throw new CheckerCrash(`cannot iterate ${pyType(v)}`);
}
/** Spaces and `,./-_*^` removed, lower-cased, single quotes made double — applied to both sides. */
export function standardizeString(s) {
    return s
        .replace(/[ ,./\-_*^]/g, '')
        .toLowerCase()
        .replace(/'/g, '"');
}
const std = (v) => (typeof v === 'string' ? standardizeString(v) : v);
function firstAnswerType(answers) {
    for (const a of answers)
        if (!(typeof a === 'string' && a === ''))
            return pyType(a);
    return null;
}
function typeChecker(param, value, answers, desc, want, nested) {
    let result = { valid: true, error: [], errorType: 'type_error:simple', isVariable: false };
    const answerType = firstAnswerType(answers);
    const isVariable = answerType !== null && answerType !== want;
    if (pyType(value) === want) {
        if (nested === null)
            return { ...result, isVariable };
        for (const item of answers) {
            let flag = true;
            if (Array.isArray(item)) {
                for (const v of iter(value)) {
                    if (!typeChecker(param, v, item, `<class '${nested}'>`, nested, null).valid) {
                        flag = false;
                        break;
                    }
                }
            }
            if (flag)
                return { valid: true, error: [], errorType: '', isVariable };
        }
        result = {
            valid: false,
            error: [
                `Nested type checking failed for parameter '${param}'. Expected outer type ${desc} with inner type ${nested}.`,
            ],
            errorType: 'type_error:nested',
            isVariable: false,
        };
    }
    if (answerType !== null && pyType(value) === answerType)
        return { ...result, isVariable: true };
    return {
        valid: false,
        error: [
            ...result.error,
            `Incorrect type for parameter '${param}'. Expected type ${desc}, got ${pyType(value)}. Parameter value: ${pyRepr(value)}.`,
        ],
        errorType: 'type_error:simple',
        isVariable: false,
    };
}
function stringChecker(param, value, answers) {
    const wanted = answers.filter((a) => typeof a === 'string').map(standardizeString);
    return wanted.includes(standardizeString(value))
        ? ok()
        : bad('value_error:string', `Invalid value for parameter '${param}': ${pyRepr(value)}. Expected one of ${pyRepr(answers)}. Case insensitive.`);
}
function listChecker(param, value, answers) {
    const got = value.map(std);
    const wanted = answers.map((a) => iter(a).map(std));
    return pyIn(got, wanted)
        ? ok()
        : bad('value_error:list/tuple', `Invalid value for parameter '${param}': ${pyRepr(value)}. Expected one of ${pyRepr(answers)}.`);
}
function dictChecker(param, value, answers) {
    let result = bad('dict_checker:unclear', `Invalid value for parameter '${param}'.`);
    for (const answer of answers) {
        if (answer === '')
            continue;
        if (!isDict(answer))
            throw new CheckerCrash('a possible dict answer is not a dict');
        result = { valid: false, error: [], errorType: 'dict_checker:unclear' };
        let flag = true;
        for (const [k, v] of value) {
            if (!answer.has(k)) {
                result = bad('value_error:dict_key', `Unexpected dict key parameter: '${k}'.`);
                flag = false;
                break;
            }
            const wanted = iter(answer.get(k)).map(std);
            if (!pyIn(std(v), wanted)) {
                result = bad('value_error:dict_value', `Invalid value for parameter '${k}': ${pyRepr(v)}. Expected one of ${pyRepr(wanted)}.`);
                flag = false;
                break;
            }
        }
        for (const [k, v] of answer) {
            if (!value.has(k) && !pyIn('', iter(v))) {
                result = bad('value_error:dict_key', `Missing dict key parameter: '${k}'.`);
                flag = false;
                break;
            }
        }
        if (flag)
            return ok();
    }
    return result;
}
function listDictChecker(param, value, answers) {
    let result = bad('list_dict_checker:unclear', `Invalid value for parameter '${param}'.`);
    for (const answer of answers) {
        const items = iter(answer);
        if (value.length !== items.length) {
            result = bad('value_error:list_dict_count', 'Wrong number of dictionaries in the list.');
            continue;
        }
        let flag = true;
        for (const [i, v] of value.entries()) {
            if (!isDict(v))
                throw new CheckerCrash('a list item is not a dict');
            result = dictChecker(param, v, [items[i]]);
            if (!result.valid) {
                flag = false;
                break;
            }
        }
        if (flag)
            return ok();
    }
    return result;
}
/** BFCL's convert_func_name for function-calling models: dots become underscores. */
export const sentName = (name) => name.replace(/\./g, '_');
export function simpleFunctionChecker(fn, call, answer) {
    const possible = [...answer.values()][0];
    if (!possible || !isDict(possible))
        throw new CheckerCrash('a possible answer is not {function: {param: [...]}}');
    const name = sentName(fn.name);
    if (call.name !== name)
        return bad('simple_function_checker:wrong_func_name', `Function name '${name}' not found in model output.`);
    if (!isDict(call.params))
        throw new CheckerCrash('parameters are not a dict');
    const params = call.params;
    const details = fn.parameters.properties;
    for (const r of fn.parameters.required ?? [])
        if (!params.has(r))
            return bad('simple_function_checker:missing_required', `Missing required parameter: '${r}'.`);
    for (const [param, raw] of params) {
        if (!Object.hasOwn(details, param) || !possible.has(param))
            return bad('simple_function_checker:unexpected_param', `Unexpected parameter: '${param}'.`);
        const answers = iter(possible.get(param));
        const desc = details[param].type ?? '';
        const want = PYTHON_TYPE[desc];
        if (!want)
            throw new CheckerCrash(`no Python type for ${JSON.stringify(desc)}`);
        let nested = null;
        if (NESTED.has(desc)) {
            const inner = PYTHON_TYPE[details[param].items?.type ?? ''];
            if (!inner)
                throw new CheckerCrash(`no Python type for the items of ${param}`);
            nested = inner;
        }
        // Python's int → float promotion for a float parameter: 5 is accepted for 5.0 (never the reverse).
        const value = desc === 'float' && typeof raw === 'bigint' ? Number(raw) : raw;
        const t = typeChecker(param, value, answers, desc, want, nested);
        if (!t.valid)
            return t;
        if (!t.isVariable) {
            let r;
            if (want === 'dict')
                r = dictChecker(param, value, answers);
            else if (want === 'list' && nested === 'dict')
                r = listDictChecker(param, value, answers);
            else if (want === 'str')
                r = stringChecker(param, value, answers);
            else if (want === 'list')
                r = listChecker(param, value, answers);
            if (r) {
                if (!r.valid)
                    return r;
                continue;
            }
        }
        if (!pyIn(value, answers))
            return bad('value_error:others', `Invalid value for parameter '${param}': ${pyRepr(value)}. Expected one of ${pyRepr(answers)}.`);
    }
    for (const [param, answers] of possible) {
        if (!params.has(param) && !pyIn('', iter(answers)))
            return bad('simple_function_checker:missing_optional', `Optional parameter '${param}' not provided and not marked as optional.`);
    }
    return ok();
}
const describe = (fns, name) => {
    const f = fns.find((x) => x.name === name);
    if (!f)
        throw new CheckerCrash(`no function ${name} for the possible answer`);
    return f;
};
const answerName = (a) => {
    if (!isDict(a) || a.size !== 1)
        throw new CheckerCrash('a possible answer is not {function: {...}}');
    return [...a.keys()][0];
};
/** BFCL's parallel_function_checker_no_order: each expected call takes the first unused call that passes. */
function parallelNoOrder(fns, calls, answers) {
    if (calls.length !== answers.length)
        return bad('parallel_function_checker_no_order:wrong_count', 'Wrong number of functions.');
    const used = new Set();
    for (const [i, a] of answers.entries()) {
        const fn = describe(fns, answerName(a));
        let found = false;
        for (const [j, c] of calls.entries()) {
            if (used.has(j))
                continue;
            if (simpleFunctionChecker(fn, c, a).valid) {
                used.add(j);
                found = true;
                break;
            }
        }
        if (!found)
            return bad('parallel_function_checker_no_order:cannot_find_match', `Could not find a matching function among the remaining model output for index ${i} of possible answers.`);
    }
    return ok();
}
/** Which checker a category uses, by the same substring tests as BFCL's ast_checker. */
export function astCheck(category, fns, calls, answers) {
    try {
        if (category.includes('parallel'))
            return parallelNoOrder(fns, calls, answers);
        if (category.includes('multiple')) {
            if (calls.length !== answers.length)
                return bad('multiple_function_checker:wrong_count', 'Wrong number of functions.');
            return simpleFunctionChecker(describe(fns, answerName(answers[0])), calls[0], answers[0]);
        }
        if (calls.length !== 1)
            return bad('simple_function_checker:wrong_count', 'Wrong number of functions.');
        return simpleFunctionChecker(fns[0], calls[0], answers[0]);
    }
    catch (err) {
        if (err instanceof CheckerCrash)
            return bad('checker_error', `BFCL's checker would raise here: ${err.message}`);
        throw err;
    }
}
/**
 * toolwatch's own pairing of parallel calls with the same per-call rules: a maximum matching
 * (augmenting paths), so an order the greedy pairing gets wrong still passes. Differs from
 * astCheck only where BFCL's greedy choice consumed a call a later expectation needed.
 */
export function bestPairing(fns, calls, answers) {
    if (calls.length !== answers.length)
        return false;
    try {
        const fits = answers.map((a) => {
            const fn = describe(fns, answerName(a));
            return calls.map((c) => simpleFunctionChecker(fn, c, a).valid);
        });
        const owner = calls.map(() => -1);
        const augment = (i, seen) => {
            for (let j = 0; j < calls.length; j++) {
                if (!fits[i][j] || seen.has(j))
                    continue;
                seen.add(j);
                if (owner[j] === -1 || augment(owner[j], seen)) {
                    owner[j] = i;
                    return true;
                }
            }
            return false;
        };
        return answers.every((_, i) => augment(i, new Set()));
    }
    catch (err) {
        if (err instanceof CheckerCrash)
            return false;
        throw err;
    }
}
export { pyEq };
//# sourceMappingURL=ast-checker.js.map