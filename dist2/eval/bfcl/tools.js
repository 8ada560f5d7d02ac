import { sentName } from './ast-checker.js';
const GORILLA_TO_OPENAPI = {
    integer: 'integer',
    number: 'number',
    float: 'number',
    string: 'string',
    boolean: 'boolean',
    bool: 'boolean',
    array: 'array',
    list: 'array',
    dict: 'object',
    object: 'object',
    tuple: 'array',
    any: 'string',
    byte: 'integer',
    short: 'integer',
    long: 'integer',
    double: 'number',
    char: 'string',
    ArrayList: 'array',
    Array: 'array',
    HashMap: 'object',
    Hashtable: 'object',
    Queue: 'array',
    Stack: 'array',
    Any: 'string',
    String: 'string',
    Bigint: 'integer',
};
export const PYTHON_HINT = ' Note that the provided function is in Python 3 syntax.';
export const FLOAT_HINT = ' This is a float type value.';
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const mapped = (t) => (typeof t === 'string' && GORILLA_TO_OPENAPI[t]) || 'string';
function castProperties(props) {
    const out = {};
    for (const [key, raw] of Object.entries(props)) {
        const p = isObj(raw) ? { ...raw } : {};
        if (p.type === 'float') {
            p.format = 'float';
            p.description = `${typeof p.description === 'string' ? p.description : ''}${FLOAT_HINT}`;
        }
        p.type = mapped(p.type);
        if (p.type === 'array' || p.type === 'object') {
            if (isObj(p.properties))
                p.properties = castProperties(p.properties);
            else if (isObj(p.items)) {
                const items = { ...p.items, type: mapped(p.items.type) };
                if (items.type === 'array' && isObj(items.items))
                    items.items = { ...items.items, type: mapped(items.items.type) };
                else if (items.type === 'object' && isObj(items.properties))
                    items.properties = castProperties(items.properties);
                p.items = items;
            }
        }
        out[key] = p;
    }
    return out;
}
export function toBfclTool(fn) {
    const params = isObj(fn.parameters) ? { ...fn.parameters } : {};
    params.type = 'object';
    params.properties = castProperties(isObj(params.properties) ? params.properties : {});
    return Object.freeze({
        name: sentName(fn.name),
        description: `${fn.description ?? ''}${PYTHON_HINT}`,
        parameters: params,
    });
}
//# sourceMappingURL=tools.js.map