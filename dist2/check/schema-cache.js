/**
 * Compiles tool schemas once and reuses the validator: keyed by schema object identity first
 * (definitions parsed from the same attribute string are the same object) and by canonical
 * content second, so a schema is never compiled per call.
 *
 * Bounded: at most `maxEntries` validators by content, and Ajv itself — which keeps every schema it
 * compiled, and every pattern and function in its shared scope — is replaced by a fresh instance
 * every `maxEntries` compilations, so the old one is collected once the validators it made are
 * evicted. Schemas come from spans: without this, memory grows with every distinct schema sent.
 */
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { createRequire } from 'node:module';
import { UNLIMITED_COMPILES } from './budget.js';
import { meter, withTicks } from './deadline.js';
import { linearFormats } from './linear-formats.js';
import { useLinearKeywords } from './linear-keywords.js';
import { linearRegExp } from './linear-regexp.js';
import { canonicalJson } from './canonical-json.js';
// JSON import attributes need Node 20.10; engines allow 20.6.
const draft6MetaSchema = createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-06.json');
const addFormats = (formatsModule.default ??
    formatsModule);
/**
 * Validation is strict in what it accepts from the model: no coercion, no defaults, nothing removed,
 * every error collected. Schema strictness is relaxed on purpose: real tool schemas carry vendor
 * keywords and formats Ajv does not know, and JSON Schema says unknown keywords are ignored.
 */
const OPTIONS = {
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
    // `pattern` and `patternProperties` run on RE2: linear time whatever the pattern (linear-regexp.ts).
    // Every function and loop ticks the deadline meter (deadline.ts), read by the code as self.opts.meter.
    code: { regExp: linearRegExp, process: withTicks },
    ...{ meter },
};
const DRAFT_2019 = /json-schema\.org\/draft\/2019-09\/schema/;
const DRAFT_2020 = /json-schema\.org\/draft\/2020-12\/schema/;
function withFormats(ajv) {
    useLinearKeywords(ajv);
    addFormats(ajv);
    for (const [name, validate] of Object.entries(linearFormats))
        ajv.addFormat(name, validate);
    return ajv;
}
function newGeneration() {
    const ajv07 = withFormats(new Ajv(OPTIONS));
    ajv07.addMetaSchema(draft6MetaSchema);
    return {
        ajv07,
        ajv2019: withFormats(new Ajv2019(OPTIONS)),
        ajv2020: withFormats(new Ajv2020(OPTIONS)),
        compiled: 0,
    };
}
export class SchemaCache {
    maxEntries;
    byObject = new WeakMap();
    byContent = new Map();
    gen = newGeneration();
    compiled = 0;
    /** Ajv instances replaced so far (each generation compiles at most maxEntries schemas). */
    generations = 1;
    constructor(maxEntries = 2_000) {
        this.maxEntries = maxEntries;
    }
    /** What Ajv currently holds: schemas in its cache, per dialect, for the memory tests. */
    ajvCacheSize() {
        const size = (a) => a._cache.size;
        return size(this.gen.ajv07) + size(this.gen.ajv2019) + size(this.gen.ajv2020);
    }
    get entries() {
        return this.byContent.size;
    }
    /**
     * The validator of a schema; a schema not compiled yet is compiled only when `allowance` grants its
     * size (a refused one is not remembered: a later batch may compile it).
     */
    get(schema, allowance = UNLIMITED_COMPILES) {
        if (typeof schema === 'boolean')
            schema = schema ? {} : { not: {} };
        if (!schema || typeof schema !== 'object' || Array.isArray(schema))
            return { ok: false, message: 'schema must be an object' };
        const hit = this.byObject.get(schema);
        if (hit)
            return hit;
        const key = canonicalJson(schema);
        let compiled = this.byContent.get(key);
        if (!compiled) {
            const bytes = Buffer.byteLength(key);
            const grant = allowance.take(bytes);
            if (grant !== 'ok')
                return refusal(grant, bytes);
            compiled = this.compile(schema);
            if (this.byContent.size >= this.maxEntries)
                this.byContent.delete(this.byContent.keys().next().value);
            this.byContent.set(key, compiled);
        }
        this.byObject.set(schema, compiled);
        return compiled;
    }
    compile(schema) {
        if (this.gen.compiled >= this.maxEntries) {
            this.gen = newGeneration();
            this.generations++;
        }
        const gen = this.gen;
        const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
        const ajv = DRAFT_2020.test(dialect) ? gen.ajv2020 : DRAFT_2019.test(dialect) ? gen.ajv2019 : gen.ajv07;
        try {
            this.compiled++;
            gen.compiled++;
            return { ok: true, validate: ajv.compile(schema) };
        }
        catch (err) {
            return { ok: false, message: err.message.slice(0, 500) };
        }
    }
}
function refusal(grant, bytes) {
    const message = grant === 'too_large'
        ? `schema of ${bytes} bytes is larger than check.compile_bytes_per_batch`
        : `schema of ${bytes} bytes not compiled: this batch's or this token's compile budget is spent`;
    return { ok: false, refused: grant, message };
}
export { canonicalJson } from './canonical-json.js';
//# sourceMappingURL=schema-cache.js.map