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
import { hasLongBase64Run, mayMatch, mayMatchJson } from './prescan.js';
import { isSecretKey } from './secret-keys.js';

export interface RedactionConfig {
  /** Field paths: `password`, `card.number`, `*.ssn` — matched against the end of a key path, case-insensitive. */
  fields: readonly string[];
  /** Extra regular expressions (JavaScript syntax); every match becomes [REDACTED]. */
  patterns: readonly string[];
  /** `secrets`: keys, tokens, JWTs, cards; `pii` (the default) adds emails and phone numbers. */
  level?: RedactionLevel;
}

export type RedactionLevel = 'secrets' | 'pii';

interface Rule {
  re: RegExp;
  replace: (match: string, ...groups: string[]) => string;
  /** Personal data rather than a secret: applied only at level `pii`. */
  pii?: true;
  /** A substring every match holds: without it in the text the rule is skipped (most text has none). */
  when?: string;
  /** The whole text at once, for a rule that must decide match by match where the scan goes on. */
  apply?: (s: string) => string;
}

const mask = (label: string) => () => `[${label}]`;

/** Luhn check: the test that separates card numbers from other long digit runs. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * Masks every 13–19-digit window of a digit run (single spaces or dashes between digits) that passes
 * Luhn. Linear in the run: at most 7 windows per digit.
 */
export function maskCardWindows(run: string): string {
  const at: number[] = [];
  let digits = '';
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      at.push(i);
      digits += run[i];
    }
  }
  // Digits covered by some Luhn-valid window: masking their union never leaves a card behind,
  // whichever window the real card is (`99 4111111111111111` holds two valid windows).
  const covered = new Uint8Array(digits.length);
  let any = false;
  for (let i = 0; i + 13 <= digits.length; i++) {
    for (let l = 13; l <= 19 && i + l <= digits.length; l++) {
      if (!luhnValid(digits.slice(i, i + l))) continue;
      covered.fill(1, i, i + l);
      any = true;
    }
  }
  if (!any) return run;
  let out = '';
  let cursor = 0;
  for (let i = 0; i < digits.length; ) {
    if (!covered[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < digits.length && covered[j + 1]) j++;
    out += run.slice(cursor, at[i]) + '[CARD]';
    cursor = at[j]! + 1;
    i = j + 1;
  }
  return out + run.slice(cursor);
}

/**
 * A value shaped like an AWS secret access key: 40 base64 characters that look random. The shape
 * alone is common (paths, identifiers), so the run must mix cases and digits and change character
 * class often — random text does ~25 times in 40 characters, an identifier or a path far less.
 */
function maskAwsSecret(m: string): string {
  if (m.startsWith('/') || m.endsWith('/')) return m;
  const cls = (c: string) => (c >= 'a' && c <= 'z' ? 0 : c >= 'A' && c <= 'Z' ? 1 : c >= '0' && c <= '9' ? 2 : 3);
  const seen = [0, 0, 0, 0];
  let changes = 0;
  for (let i = 0; i < m.length; i++) {
    const c = cls(m[i]!);
    seen[c]!++;
    if (i > 0 && c !== cls(m[i - 1]!)) changes++;
  }
  const [lower, upper, digit, sym] = seen as [number, number, number, number];
  if (lower < 3 || upper < 3 || digit < 1) return m;
  return changes >= (sym > 0 ? 10 : 18) ? '[SECRET]' : m;
}

/**
 * `key=value`, `key: value`, `"key": "value"` (also inside JSON-escaped JSON, `\"key\": \"value\"`) for
 * a key that names a secret (src/redact/secret-keys.ts): the value is masked whatever it looks like,
 * the key and quotes kept. A quoted value runs to its own closing quote (spaces and the other quote
 * included); an unquoted one to whitespace or , ; & } ] > (after an auth scheme word,
 * `Authorization: Bearer abc`, the token too).
 * A value that is already a mask, a bare null/true/false, is kept.
 */
const KEY_VALUE =
  /(?<![\w.-])([A-Za-z][\w.-]{0,63})(\\{0,8}["']?\s*[:=](?!\/\/)\s*)(?:(\\{0,8}(["']))((?:(?!\\?\4)[^\n])+)|((?:(?:[Bb]earer|[Bb]asic|[Tt]oken|[Dd]igest)[ \t]+)?[^\s"'\\,;&}{<>[\]]+))/g;

const SECRET_KEY_HINT = /pass|pw|secret|token|key|cred|auth|cookie|otp|cv[vc]/i;

const AWS_SECRET = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

/**
 * Only a secret key's value is consumed: after any other key the scan goes on right behind the key,
 * so `url=https://x/?token=…` or `note: a?password=…` still reach the pair inside.
 */
function maskKeyValues(s: string): string {
  // Most text names no secret at all: one cheap scan for the words every secret key holds, and a
  // pair needs its `:` or `=` (prose that mentions a password has neither).
  if (!SECRET_KEY_HINT.test(s) || (!s.includes(':') && !s.includes('='))) return s;
  const re = KEY_VALUE;
  re.lastIndex = 0;
  let out = '';
  let cursor = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    const [all, key = '', sep = '', quote = '', , quoted, bare] = m;
    const value = quoted ?? bare ?? '';
    if (!isSecretKey(key) || value.startsWith('[') || /^(null|true|false)$/.test(value)) {
      re.lastIndex = m.index + key.length;
      continue;
    }
    out += `${s.slice(cursor, m.index)}${key}${sep}${quote}[SECRET]`;
    cursor = m.index + all.length;
  }
  return cursor === 0 ? s : out + s.slice(cursor);
}

/** Built-in rules, most specific first (a JWT or key must not be half-eaten by the phone rule). */
const BUILTIN: Rule[] = [
  // PEM and PGP private key blocks (RSA, EC, OPENSSH, ENCRYPTED, PGP … BLOCK); one cut short by a clip
  // (no END line) is masked to the end of the text.
  {
    re: /-----BEGIN (?:[A-Z0-9]+ )*(?:PRIVATE KEY(?: BLOCK)?|SECRET KEY)-----[\s\S]*?(?:-----END [A-Z0-9 ]*-----|$)/g,
    replace: mask('SECRET'),
    when: '-----BEGIN ',
  },
  // JWTs: three base64url parts, the first two starting with eyJ ('{"').
  { re: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, replace: mask('SECRET'), when: 'eyJ' },
  // Webhook URLs are credentials in themselves (Slack, Discord, Microsoft Teams, Google Chat): the path goes.
  {
    re: /\bhttps?:\/\/(hooks\.slack\.com|discord(?:app)?\.com\/api\/webhooks|[\w-]+\.webhook\.office\.com|outlook\.office\.com\/webhook|chat\.googleapis\.com\/v1\/spaces)\/[^\s"'<>\\]+/gi,
    replace: (m) => `${m.slice(0, m.indexOf('/', m.indexOf('//') + 2))}/[SECRET]`,
    when: '://',
  },
  // Credentials in a URL: scheme://user:password@host (DSNs: postgres://, redis://, amqp://, https://).
  {
    re: /\b([a-z][a-z0-9+.-]{1,20}:\/\/[^\s:@/?#"'<>\\]{0,256}:)([^\s@/?#"'<>\\]{1,1024})@/gi,
    replace: (_m, head) => `${head}[SECRET]@`,
    when: '://',
  },
  // Signed-URL signatures (S3, GCS, Azure SAS); token=, access_token=, api_key= go by the key rule below.
  {
    re: /([?&](?:sig|signature|x-amz-signature|x-goog-signature)=)[^&#\s"'<>\\]+/gi,
    replace: (m) => `${m.slice(0, m.indexOf('=') + 1)}[SECRET]`,
    when: '=',
  },
  // Authorization headers.
  { re: /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, replace: (m) => `${m.split(/\s+/)[0]} [SECRET]` },
  // Provider keys: OpenAI/Anthropic sk-…, GitHub, GitLab, Slack, Google, Stripe, Hugging Face, npm,
  // AWS access key ids.
  { re: /\bsk-[A-Za-z0-9_-]{16,}/g, replace: mask('SECRET'), when: 'sk-' },
  {
    re: /\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,})/g,
    replace: mask('SECRET'),
  },
  { re: /\b(xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,})/g, replace: mask('SECRET') },
  { re: /\b(AIza[0-9A-Za-z_-]{30,}|ya29\.[0-9A-Za-z_-]{20,})/g, replace: mask('SECRET') },
  { re: /\b[rs]k_(live|test)_[A-Za-z0-9]{10,}/g, replace: mask('SECRET') },
  { re: /\b(hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36})\b/g, replace: mask('SECRET') },
  { re: /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: mask('SECRET') },
  // AWS secret access keys, with or without their key next to them.
  {
    re: AWS_SECRET,
    replace: maskAwsSecret,
    apply: (t) => (hasLongBase64Run(t) ? t.replace(AWS_SECRET, maskAwsSecret) : t),
  },
  // key=value / "key": "value" for secret-named keys.
  { re: KEY_VALUE, replace: (m) => m, apply: maskKeyValues },
  // Emails. (Starting only where a run of local-part characters starts keeps it linear: otherwise a
  // long run without '@' is scanned again from each of its characters.)
  {
    re: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
    replace: mask('EMAIL'),
    pii: true,
    when: '@',
  },
  // Card numbers: 13–19 digits, optional single spaces/dashes between groups, Luhn-valid — also
  // inside a longer run (`4242 4242 4242 4242 12/27`, `4111111111111111 123`): every window is tried.
  { re: /(?<!\d[ -]?)\d(?:[ -]?\d){12,}/g, replace: maskCardWindows },
  // Phone numbers: + and 8–15 digits, or 9–15 digits in separated groups ((555) 123-4567, 555.123.4567).
  {
    pii: true,
    re: /(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{2,5}(?:[\s.-]\d{2,5}){1,4}(?![\w])|(?<![\w+])\+\d{8,15}(?!\w)/g,
    replace: (m) => {
      const digits = m.replace(/\D/g, '').length;
      const separated = /[\s.()-]/.test(m) || m.startsWith('+');
      // Dates (2024-01-15) and versions have too few digits; plain runs without + are left alone.
      return separated && digits >= 9 && digits <= 15 && !/^\d{4}-\d{2}-\d{2}/.test(m) ? '[PHONE]' : m;
    },
  },
];

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
  const pii = cfg.level !== 'secrets';
  const builtin = pii ? BUILTIN : BUILTIN.filter((r) => !r.pii);
  const custom: Rule[] = cfg.patterns.map((p) => ({ re: new RegExp(p, 'g'), replace: mask('REDACTED') }));
  const rules: Rule[] = [...builtin, ...custom];
  const fields = cfg.fields.map((f) => f.toLowerCase().split('.'));

  const text = (s: string): string => {
    let out = s;
    // A text in which no built-in rule could match goes through the configured patterns only.
    for (const r of !prescan || mayMatch(s, pii) ? rules : custom) {
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
    mayChangeJson: (raw) => !prescan || fields.length > 0 || custom.length > 0 || mayMatchJson(raw, pii),
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
