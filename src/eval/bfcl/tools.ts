/**
 * BFCL's function documents as BFCL sends them to a function-calling model over chat completions
 * (model_handler/utils.py convert_to_tool with GORILLA_TO_OPENAPI, after the language hint of
 * utils.py): the Python hint appended to the description, dots in names made underscores, the
 * parameters' type set to `object`, every property's type mapped (`dict` → object, `float` →
 * number with `format: "float"` and a sentence added to its description, `tuple` → array, `any` →
 * string, an unknown or missing type → string), into nested properties and items as BFCL goes.
 * BFCL's own keys (`optional`, `default`, `format: "float"`) stay: the production checker's Ajv is
 * not strict about keywords, so they are ignored there, never fatal.
 */
import type { ToolDef } from '../../model.js';
import { type BfclFunction, sentName } from './ast-checker.js';

const GORILLA_TO_OPENAPI: Record<string, string> = {
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

type Schema = Record<string, unknown>;
const isObj = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const mapped = (t: unknown): string => (typeof t === 'string' && GORILLA_TO_OPENAPI[t]) || 'string';

function castProperties(props: Schema): Schema {
  const out: Schema = {};
  for (const [key, raw] of Object.entries(props)) {
    const p: Schema = isObj(raw) ? { ...raw } : {};
    if (p.type === 'float') {
      p.format = 'float';
      p.description = `${typeof p.description === 'string' ? p.description : ''}${FLOAT_HINT}`;
    }
    p.type = mapped(p.type);
    if (p.type === 'array' || p.type === 'object') {
      if (isObj(p.properties)) p.properties = castProperties(p.properties);
      else if (isObj(p.items)) {
        const items: Schema = { ...p.items, type: mapped(p.items.type) };
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

export function toBfclTool(fn: BfclFunction): ToolDef {
  const params: Schema = isObj(fn.parameters) ? { ...fn.parameters } : {};
  params.type = 'object';
  params.properties = castProperties(isObj(params.properties) ? params.properties : {});
  return Object.freeze({
    name: sentName(fn.name),
    description: `${fn.description ?? ''}${PYTHON_HINT}`,
    parameters: params,
  });
}
