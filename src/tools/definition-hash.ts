/**
 * The version of a tool definition: a hash of its canonical form, so the same definition sent by
 * OpenAI, Anthropic, Vercel AI, MCP, Bedrock or Gemini emitters — or re-serialised with its keys in
 * another order or other whitespace — is one version, and any change a model could see (name,
 * description, parameter schema) is a new one.
 *
 * Canonical form: `{"name", "description", "parameters"}` after the shape readers in tooldefs.ts
 * have unwrapped the emitter's envelope (`function`, `toolSpec`, `{json}`, Gemini's capitals), with
 * - object keys sorted (at every depth),
 * - the description trimmed and each run of whitespace made one space ("" when absent),
 * - `required` (a set of names) sorted wherever it is a schema keyword,
 * - no parameters = `null`; array order otherwise kept (`enum`, `anyOf`, `items` tuples mean
 *   something in order, or at least a model sees them so).
 * The version is the first 16 hex digits (64 bits) of the SHA-256 of that form's JSON text; the
 * tool set offered in a request is the SHA-256 prefix of its sorted, distinct names joined by "\n".
 */
import { createHash } from 'node:crypto';
import type { ToolDef } from '../model.js';
import { Lru } from '../util/lru.js';
import { parseJson } from '../util/values.js';

export interface CanonicalDefinition {
  name: string;
  description: string;
  parameters: unknown;
}

/** Keywords whose value is a map of name → subschema. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is a subschema, or a list of them. */
const SCHEMA_VALUES = new Set([
  'items',
  'prefixItems',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'propertyNames',
  'contains',
  'contentSchema',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
]);
const MAX_DEPTH = 64;

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);

/** Plain data (enum values, defaults, examples): keys sorted, nothing else touched. */
function sortedData(v: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return v;
  if (Array.isArray(v)) return v.map((x) => sortedData(x, depth + 1));
  if (!isObj(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = sortedData(v[k], depth + 1);
  return out;
}

function canonicalSchema(v: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return v;
  if (Array.isArray(v)) return v.map((x) => canonicalSchema(x, depth + 1));
  if (!isObj(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const val = v[k];
    // As in the JSON text the hash is taken of: an undefined value is no key at all.
    if (val === undefined) continue;
    if (k === 'required' && Array.isArray(val) && val.every((x) => typeof x === 'string')) {
      out[k] = [...new Set(val)].sort();
    } else if (SCHEMA_MAPS.has(k) && isObj(val)) {
      const m: Record<string, unknown> = {};
      for (const name of Object.keys(val).sort()) {
        if (val[name] !== undefined) m[name] = canonicalSchema(val[name], depth + 1);
      }
      out[k] = m;
    } else if (SCHEMA_VALUES.has(k)) {
      out[k] = canonicalSchema(val, depth + 1);
    } else {
      out[k] = sortedData(val, depth + 1);
    }
  }
  return out;
}

export function canonicalDefinition(def: ToolDef): CanonicalDefinition {
  return {
    name: def.name,
    description: (def.description ?? '').replace(/\s+/g, ' ').trim(),
    parameters: def.parameters === undefined ? null : canonicalSchema(def.parameters, 0),
  };
}

const sha16 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * Definitions read from one definitions string are the same frozen objects for every span that
 * sends it (tooldefs.ts caches them), so keying by identity makes the hot path pay once per
 * distinct definitions value; a WeakMap lets them go when that cache drops them.
 */
const versions = new WeakMap<ToolDef, { version: string; text: string }>();

function versioned(def: ToolDef): { version: string; text: string } {
  const hit = versions.get(def);
  if (hit !== undefined) return hit;
  const text = JSON.stringify(canonicalDefinition(def));
  const v = { version: sha16(text), text };
  if (Object.isFrozen(def)) versions.set(def, v);
  return v;
}

/** The definition's version (16 hex digits). */
export function definitionVersion(def: ToolDef): string {
  return versioned(def).version;
}

/** The canonical definition's JSON text (what versions are stored with, for diffs); cached as the version is. */
export function canonicalText(def: ToolDef): string {
  return versioned(def).text;
}

/** The version of the set of tools offered (names only; order and repeats ignored). */
export function toolSetVersion(defs: readonly ToolDef[]): string {
  // Every request of an agent offers the same list: hashed once per distinct list of names as offered.
  let offered = '';
  for (const d of defs) offered += `${d.name}\n`;
  const hit = toolSetCache.get(offered);
  if (hit !== undefined) return hit;
  const version = sha16([...new Set(defs.map((d) => d.name))].sort().join('\n'));
  toolSetCache.set(offered, version);
  return version;
}

const toolSetCache = new Lru<string>(1024, 8 * 1024 * 1024);

/** Instructions strings repeat on every request of an agent: hashed once per distinct string. */
const promptCache = new Lru<string>(256, 8 * 1024 * 1024);
/** The last value asked and its version: consecutive requests of an agent send the same one (mostly the same string). */
let lastPrompt = '';
let lastPromptVersion: string | undefined;

/**
 * The version of a system prompt / instructions value (`gen_ai.system_instructions`): a JSON value
 * (the semconv's list of parts) is hashed with its keys sorted, so re-serialising it is no change;
 * any other text is hashed trimmed. The text itself is never kept. undefined for an empty value.
 */
export function promptVersion(value: string): string | undefined {
  if (value === lastPrompt) return lastPromptVersion;
  const version = promptVersionOf(value);
  lastPrompt = value;
  lastPromptVersion = version;
  return version;
}

function promptVersionOf(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  const hit = promptCache.get(value);
  if (hit !== undefined) return hit;
  const parsed = parseJson(value);
  const version = sha16(parsed === undefined ? value.trim() : JSON.stringify(sortedData(parsed, 0)));
  promptCache.set(value, version);
  return version;
}
