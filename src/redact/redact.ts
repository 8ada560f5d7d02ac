/**
 * Redaction before anything leaves the process (the judge) or is stored (store.redact_arguments).
 * Pure: a compiled rule set applied to strings and to JSON values. For the judge, two layers: the
 * trajectory is redacted field by field (JSON arguments and results are parsed so configured field
 * paths can be masked), then the final prompt text is scanned again, so a secret split oddly across
 * fields or formatting still cannot pass. Callers fail closed: if anything here throws, nothing is
 * sent (the judge) or the value is not stored (src/redact/stored.ts).
 *
 * One rule set for every path that stores or sends a value — failure records, sampled trajectories,
 * feedback comments, the export, the judge's request, eval records: they differ only in the
 * configured fields and patterns and in whether personal data is masked too (the level).
 */
import { mayMatchJson } from './prescan.js';
import { builtinPreScan, builtinRules, mask, type RedactionLevel, type Rule } from './rules.js';
import { isSecretKey } from './secret-keys.js';

export type { RedactionLevel } from './rules.js';

export interface RedactionConfig {
  /** Field paths: `password`, `card.number`, `*.ssn` — matched against the end of a key path, case-insensitive. */
  fields: readonly string[];
  /** Extra regular expressions (JavaScript syntax); every match becomes [REDACTED]. */
  patterns: readonly string[];
  /** `secrets`: keys, tokens, JWTs, cards; `pii` (the default) adds emails and phone numbers. */
  level?: RedactionLevel;
}

export interface Redactor {
  text(s: string): string;
  /** Masks configured field paths, then every string inside. */
  value(v: unknown): unknown;
  /** Every string inside, without field paths (for schemas: their keys are names, not data). */
  strings(v: unknown): unknown;
  /** A string that may hold JSON (arguments, results): redacted as a value when it parses. */
  jsonText(s: string): string;
}

/** What the stored-value redaction (stored.ts) uses besides a Redactor's own methods. */
export interface MaskingRedactor extends Redactor {
  /**
   * What value() masks, but an object or array in which nothing was masked is returned itself (the
   * caller learns "nothing to mask" by identity, without serialising the value to compare).
   */
  masked(v: unknown): unknown;
  /**
   * Whether masking this JSON text value by value could change it: false only when no configured
   * field path or pattern applies and the pre-scan (src/redact/prescan.ts) finds nothing any rule
   * could match, so the caller keeps the text without parsing it.
   */
  mayChangeJson(raw: string): boolean;
}

/**
 * Compiles the rules; throws on a pattern that is not a valid regular expression. `prescan: false`
 * runs every rule on every text: the reference test/redact/prescan.test.ts holds the pre-scan to.
 */
export function createRedactor(cfg: RedactionConfig, { prescan = true }: { prescan?: boolean } = {}): MaskingRedactor {
  const custom: Rule[] = cfg.patterns.map((p) => ({ re: new RegExp(p, 'g'), replace: mask('REDACTED') }));
  const rules: Rule[] = [...builtinRules(cfg.level), ...custom];
  const fields = cfg.fields.map((f) => f.toLowerCase().split('.'));
  const mayMatch = builtinPreScan(cfg.level);

  const text = (s: string): string => {
    let out = s;
    // A text in which no built-in rule could match goes through the configured patterns only.
    for (const r of !prescan || mayMatch(s) ? rules : custom) {
      r.re.lastIndex = 0;
      if (r.when !== undefined && !out.includes(r.when)) continue;
      out = r.apply ? r.apply(out) : out.replace(r.re, r.replace);
    }
    return out;
  };

  const fieldMatches = (path: readonly string[]): boolean =>
    fields.some(
      (f) => f.length <= path.length && f.every((seg, i) => seg === '*' || seg === path[path.length - f.length + i]),
    );

  const SECRET = '[SECRET]';
  /** Every string and number inside a value held under a secret-named key. */
  const maskAll = (v: unknown): unknown => {
    if (typeof v === 'string' || typeof v === 'number') return SECRET;
    if (Array.isArray(v)) return v.map(maskAll);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskAll(x)]));
    return v;
  };

  /** `keep`: an object or array in which nothing was masked is returned itself, not a copy. */
  const walk = (v: unknown, path: string[], byField = true, keep = false): unknown => {
    if (typeof v === 'string') return text(v);
    // A card number sent as a JSON number is still a card number.
    if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) >= 1e12)
      return text(String(v)) === String(v) ? v : '[CARD]';
    if (Array.isArray(v)) {
      // A header tuple, ["X-Api-Key", "…"]: the first element names the second.
      if (byField && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string' && isSecretKey(v[0]))
        return [text(v[0]), SECRET];
      const out = v.map((x) => walk(x, path, byField, keep));
      return keep && out.every((x, i) => x === v[i]) ? v : out;
    }
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const named = byField ? pairName(o) : undefined;
      let changed = false;
      const entries = Object.entries(o).map(([k, x]): [string, unknown] => {
        const p = [...path, k.toLowerCase()];
        const y =
          byField && fieldMatches(p)
            ? '[REDACTED]'
            : byField && (isSecretKey(k) || k === named)
              ? secretValue(x, p)
              : walk(x, p, byField, keep);
        if (y !== x) changed = true;
        return [k, y];
      });
      // Built with fromEntries: a `__proto__` key stays an own property (an assignment would set the prototype).
      return keep && !changed ? o : Object.fromEntries(entries);
    }
    return v;
  };

  /**
   * What a secret-named key holds: a string or number is masked, an object or array has every string
   * and number inside masked — unless it is a JSON Schema (a tool's `properties.password` describes
   * the argument, it is not one), which is walked as usual.
   */
  const secretValue = (x: unknown, p: string[]): unknown =>
    x && typeof x === 'object' && !Array.isArray(x) && looksLikeSchema(x as Record<string, unknown>)
      ? walk(x, p)
      : maskAll(x);

  return {
    text,
    value: (v) => walk(v, []),
    masked: (v) => walk(v, [], true, true),
    mayChangeJson: (raw) => !prescan || fields.length > 0 || custom.length > 0 || mayMatchJson(raw, mayMatch),
    strings: (v) => walk(v, [], false),
    jsonText(s) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(s);
      } catch {
        return text(s);
      }
      return parsed && typeof parsed === 'object' ? JSON.stringify(walk(parsed, [])) : text(s);
    },
  };
}

const SCHEMA_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const SCHEMA_KEYS = ['$ref', 'properties', 'items', 'anyOf', 'oneOf', 'allOf', 'enum'];

function looksLikeSchema(o: Record<string, unknown>): boolean {
  const t = o.type;
  if (typeof t === 'string' && SCHEMA_TYPES.has(t)) return true;
  if (Array.isArray(t) && t.length > 0 && t.every((x) => typeof x === 'string' && SCHEMA_TYPES.has(x))) return true;
  return SCHEMA_KEYS.some((k) => Object.hasOwn(o, k));
}

/** Keys that name the value beside them in a `{name, value}` pair (headers, parameters, environment lists). */
const PAIR_NAMES = ['name', 'key', 'header', 'field', 'param', 'parameter'];
const PAIR_VALUES = ['value', 'val'];

/**
 * `{"name": "X-Api-Key", "value": "…"}`: the key of the value being masked is in another field. Returns
 * the property holding the value when its name is secret-sounding.
 */
function pairName(o: Record<string, unknown>): string | undefined {
  const valueKey = PAIR_VALUES.find((k) => Object.hasOwn(o, k));
  if (valueKey === undefined) return undefined;
  for (const n of PAIR_NAMES) {
    const name = o[n];
    if (typeof name === 'string' && isSecretKey(name)) return valueKey;
  }
  return undefined;
}
