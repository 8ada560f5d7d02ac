/**
 * Compiles tool schemas once and reuses the validator: keyed by schema object identity first
 * (definitions parsed from the same attribute string are the same object) and by canonical
 * content second, so a schema is never compiled per call.
 */
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { createRequire } from 'node:module';

// JSON import attributes need Node 20.10; engines allow 20.6.
const draft6MetaSchema = createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-06.json') as object;

type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats = ((formatsModule as unknown as { default?: FormatsPlugin }).default ?? formatsModule) as unknown as FormatsPlugin;

export type Compiled = { ok: true; validate: ValidateFunction } | { ok: false; message: string };

/**
 * Validation is strict in what it accepts from the model: no coercion, no defaults, nothing removed,
 * every error collected. Schema strictness is relaxed on purpose: real tool schemas carry vendor
 * keywords and formats Ajv does not know, and JSON Schema says unknown keywords are ignored.
 */
const OPTIONS: Options = {
  allErrors: true,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  strict: false,
  validateFormats: true,
  addUsedSchema: false,
  logger: false,
  // Model output is attacker-reachable: keep Ajv's regexes on the safe engine path.
  unicodeRegExp: true,
};

const DRAFT_2019 = /json-schema\.org\/draft\/2019-09\/schema/;
const DRAFT_2020 = /json-schema\.org\/draft\/2020-12\/schema/;

export class SchemaCache {
  private readonly byObject = new WeakMap<object, Compiled>();
  private readonly byContent = new Map<string, Compiled>();
  private readonly ajv07: Ajv;
  private readonly ajv2019: Ajv;
  private readonly ajv2020: Ajv;
  compiled = 0;

  constructor(private readonly maxEntries = 2_000) {
    this.ajv07 = addFormats(new Ajv(OPTIONS));
    this.ajv07.addMetaSchema(draft6MetaSchema);
    this.ajv2019 = addFormats(new Ajv2019(OPTIONS) as unknown as Ajv);
    this.ajv2020 = addFormats(new Ajv2020(OPTIONS) as unknown as Ajv);
  }

  get(schema: unknown): Compiled {
    if (typeof schema === 'boolean') schema = schema ? {} : { not: {} };
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return { ok: false, message: 'schema must be an object' };
    const hit = this.byObject.get(schema);
    if (hit) return hit;
    const key = canonicalJson(schema);
    let compiled = this.byContent.get(key);
    if (!compiled) {
      compiled = this.compile(schema as Record<string, unknown>);
      if (this.byContent.size >= this.maxEntries) this.byContent.delete(this.byContent.keys().next().value!);
      this.byContent.set(key, compiled);
    }
    this.byObject.set(schema, compiled);
    return compiled;
  }

  private compile(schema: Record<string, unknown>): Compiled {
    const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
    const ajv = DRAFT_2020.test(dialect) ? this.ajv2020 : DRAFT_2019.test(dialect) ? this.ajv2019 : this.ajv07;
    try {
      this.compiled++;
      return { ok: true, validate: ajv.compile(schema) };
    } catch (err) {
      return { ok: false, message: (err as Error).message.slice(0, 500) };
    }
  }
}

/** JSON with sorted keys, so two equal schemas share one validator whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = Object.create(null);
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}
