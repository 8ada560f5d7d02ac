/**
 * Tool definitions in every shape emitters use, turned into ToolDef. Also used by the tool registry's
 * file loader (toToolDef), so it accepts anything a person might paste into a file too.
 */
import type { ToolDef } from '../model.js';
import { Lru } from '../util/lru.js';
import { exceedsDepth, isRecord, jsonValue, parseJson, TOO_DEEP_RAW, type Rec } from '../util/values.js';

/** Where the schema of the arguments lives, by emitter (OTel/OpenAI, Pydantic AI, Vercel/MCP, Anthropic). */
const SCHEMA_KEYS = ['parameters', 'parameters_json_schema', 'inputSchema', 'input_schema'] as const;

const CACHE_ENTRIES = 512;
const CACHE_CHARS = 32 * 1024 * 1024;

/** Cached "could not read" result: an unparseable definitions string repeats as often as a good one. */
const UNREADABLE = Symbol('unreadable');
const defsCache = new Lru<readonly ToolDef[] | typeof UNREADABLE>(CACHE_ENTRIES, CACHE_CHARS);
const schemaCache = new Lru<unknown>(CACHE_ENTRIES, CACHE_CHARS);

/**
 * A schema given as a JSON string is parsed; one that does not parse stays the string, so the
 * checker reports `bad_schema` rather than silently treating the tool as schema-less.
 */
function schemaOf(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const hit = schemaCache.get(v);
  if (hit !== undefined) return hit === UNREADABLE ? v : hit;
  const parsed = parseJson(v);
  schemaCache.set(v, parsed === undefined ? UNREADABLE : parsed);
  return parsed === undefined ? v : parsed;
}

/** The wrapper a definition may come in: OpenAI `{function:{…}}`, Bedrock Converse `{toolSpec:{…}}`. */
function unwrapDefinition(parsed: Rec): Rec {
  if (parsed['name'] !== undefined) return parsed;
  const inner = parsed['function'] ?? parsed['toolSpec'];
  return isRecord(inner) ? inner : parsed;
}

/**
 * The schema a definition holds, in JSON Schema form: Bedrock/Strands wrap it as `{json: …}`;
 * Gemini's OpenAPI-style Schema (Google ADK, google-genai) spells types in capitals and, dumped by
 * pydantic, multi-word keywords in snake_case.
 */
function normalizeSchema(schema: unknown): unknown {
  let s = schema;
  if (isRecord(s) && isRecord(s['json']) && Object.keys(s).length === 1) s = s['json'];
  return isGeminiSchema(s) ? fromGemini(s, 0) : s;
}

const GEMINI_TYPES = new Set(['OBJECT', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'NULL', 'TYPE_UNSPECIFIED']);
const GEMINI_KEYS: Record<string, string> = {
  any_of: 'anyOf',
  min_items: 'minItems',
  max_items: 'maxItems',
  min_length: 'minLength',
  max_length: 'maxLength',
  min_properties: 'minProperties',
  max_properties: 'maxProperties',
};
/** Keywords whose value is a map of subschemas or a subschema (or a list of them). */
const SUBSCHEMA_MAPS = new Set(['properties', '$defs', 'definitions']);
const SUBSCHEMAS = new Set(['items', 'anyOf', 'not', 'additionalProperties']);

function isGeminiSchema(s: unknown): s is Rec {
  return isRecord(s) && typeof s['type'] === 'string' && GEMINI_TYPES.has(s['type']);
}

function fromGemini(v: unknown, depth: number): unknown {
  if (depth > 64) return v;
  if (Array.isArray(v)) return v.map((x) => fromGemini(x, depth + 1));
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k0, val] of Object.entries(v)) {
    const k = GEMINI_KEYS[k0] ?? k0;
    if (k === 'type' && typeof val === 'string' && GEMINI_TYPES.has(val)) {
      if (val !== 'TYPE_UNSPECIFIED') out[k] = val.toLowerCase();
    } else if (SUBSCHEMA_MAPS.has(k) && isRecord(val)) {
      const m: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(val)) m[name] = fromGemini(sub, depth + 1);
      out[k] = m;
    } else if (SUBSCHEMAS.has(k)) {
      out[k] = fromGemini(val, depth + 1);
    } else {
      out[k] = val;
    }
  }
  return out;
}

/** One definition object (or its JSON string) → ToolDef; undefined when it names no tool. */
export function toToolDef(obj: unknown): ToolDef | undefined {
  const parsed = typeof obj === 'string' ? parseJson(obj) : obj;
  if (!isRecord(parsed)) return undefined;
  const o = unwrapDefinition(parsed);
  const name = o['name'];
  if (typeof name !== 'string' || name === '') return undefined;
  const def: ToolDef = { name };
  const description = o['description'];
  if (typeof description === 'string') def.description = description;
  for (const key of SCHEMA_KEYS) {
    const s = o[key];
    if (s !== undefined && s !== null) {
      const schema = schemaOf(s);
      // An over-deep schema would overflow Ajv's compiler; a string marker makes it `bad_schema`.
      def.parameters = exceedsDepth(schema) ? TOO_DEEP_RAW : normalizeSchema(schema);
      break;
    }
  }
  // Shared through the cache by every span that sends the same string: freeze so nobody edits it for all.
  return Object.freeze(def);
}

/** Gemini groups several functions in one tool object. */
function pushDefs(out: ToolDef[], item: unknown): void {
  if (typeof item === 'string') {
    const defs = parseToolDefsString(item);
    if (defs) out.push(...defs);
    return;
  }
  if (isRecord(item)) {
    const group = item['functionDeclarations'] ?? item['function_declarations'];
    if (Array.isArray(group)) {
      for (const g of group) {
        const d = toToolDef(g);
        if (d) out.push(d);
      }
      return;
    }
  }
  const d = toToolDef(item);
  if (d) out.push(d);
}

function fromList(list: readonly unknown[]): ToolDef[] | undefined {
  if (list.length === 0) return [];
  const out: ToolDef[] = [];
  for (const item of list) pushDefs(out, item);
  // Definitions were sent but none could be read: unknown, not "offered none" (which would flag every call).
  return out.length === 0 ? undefined : out;
}

function fromParsed(v: unknown): ToolDef[] | undefined {
  if (Array.isArray(v)) return fromList(v);
  if (isRecord(v)) {
    const tools = v['tools'];
    if (Array.isArray(tools)) return fromList(tools);
    const out: ToolDef[] = [];
    pushDefs(out, v);
    return out.length === 0 ? undefined : out;
  }
  return undefined;
}

function parseToolDefsString(s: string): readonly ToolDef[] | undefined {
  const hit = defsCache.get(s);
  if (hit !== undefined) return hit === UNREADABLE ? undefined : hit;
  const defs = fromParsed(jsonValue(s));
  defsCache.set(s, defs === undefined ? UNREADABLE : Object.freeze(defs));
  return defs;
}

/**
 * A definitions attribute in any encoding: a JSON string of a list (memoised by the string), a list
 * of definition objects, a list of JSON strings (Vercel `ai.prompt.tools`), or one object.
 * undefined = nothing readable; [] = an explicit empty list. A string's list is the memoised one
 * (frozen), shared by every span that sent the same text: nothing changes a span's offered tools.
 */
export function parseToolDefs(v: unknown): readonly ToolDef[] | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string') return parseToolDefsString(v);
  return fromParsed(v);
}

/** For tests: start from a cold cache. */
export function clearToolDefCache(): void {
  defsCache.clear();
  schemaCache.clear();
}
