/**
 * Redaction before anything leaves the process (the judge) or is stored (store.redact_arguments).
 * Pure: a compiled rule set applied to strings and to JSON values. For the judge, two layers: the
 * trajectory is redacted field by field (JSON arguments and results are parsed so configured field
 * paths can be masked), then the final prompt text is scanned again, so a secret split oddly across
 * fields or formatting still cannot pass. Callers fail closed: if anything here throws, nothing is
 * sent (the judge) or the value is not stored (src/redact/stored.ts).
 */

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
  replace: (match: string) => string;
  /** Personal data rather than a secret: applied only at level `pii`. */
  pii?: true;
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

/** Built-in rules, most specific first (a JWT or key must not be half-eaten by the phone rule). */
const BUILTIN: Rule[] = [
  // PEM private keys.
  { re: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, replace: mask('SECRET') },
  // JWTs: three base64url parts, the first two starting with eyJ ('{"').
  { re: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, replace: mask('SECRET') },
  // Authorization headers.
  { re: /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, replace: (m) => `${m.split(/\s+/)[0]} [SECRET]` },
  // Provider keys: OpenAI/Anthropic sk-…, GitHub, Slack, Google, Stripe, AWS access key ids.
  { re: /\bsk-[A-Za-z0-9_-]{16,}/g, replace: mask('SECRET') },
  { re: /\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, replace: mask('SECRET') },
  { re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replace: mask('SECRET') },
  { re: /\bAIza[0-9A-Za-z_-]{30,}/g, replace: mask('SECRET') },
  { re: /\b[rs]k_(live|test)_[A-Za-z0-9]{10,}/g, replace: mask('SECRET') },
  { re: /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: mask('SECRET') },
  // key=value / "key": "value" for secret-sounding keys (aws_secret_access_key, api_key, password …).
  {
    // (A value that is already a mask, [REDACTED] …, is left as it is.)
    re: /((?:api[_-]?key|secret(?:[_-]?access)?[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|password|passwd|pwd)["']?\s*[:=]\s*["']?)(?!\[)([^"'\s,;}&{[]{4,})/gi,
    replace: (m) => m.replace(/([:=]\s*["']?)[^"'\s,;}&]{4,}$/, '$1[SECRET]'),
  },
  // Emails. (Starting only where a run of local-part characters starts keeps it linear: otherwise a
  // long run without '@' is scanned again from each of its characters.)
  {
    re: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
    replace: mask('EMAIL'),
    pii: true,
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

/** Compiles the rules; throws on a pattern that is not a valid regular expression. */
export function createRedactor(cfg: RedactionConfig): Redactor {
  const builtin = cfg.level === 'secrets' ? BUILTIN.filter((r) => !r.pii) : BUILTIN;
  const rules = [...builtin, ...cfg.patterns.map((p) => ({ re: new RegExp(p, 'g'), replace: mask('REDACTED') }))];
  const fields = cfg.fields.map((f) => f.toLowerCase().split('.'));

  const text = (s: string): string => {
    let out = s;
    for (const r of rules) {
      r.re.lastIndex = 0;
      out = out.replace(r.re, r.replace);
    }
    return out;
  };

  const fieldMatches = (path: readonly string[]): boolean =>
    fields.some(
      (f) => f.length <= path.length && f.every((seg, i) => seg === '*' || seg === path[path.length - f.length + i]),
    );

  const walk = (v: unknown, path: string[], byField = true): unknown => {
    if (typeof v === 'string') return text(v);
    // A card number sent as a JSON number is still a card number.
    if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) >= 1e12)
      return text(String(v)) === String(v) ? v : '[CARD]';
    if (Array.isArray(v)) return v.map((x) => walk(x, path, byField));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const p = [...path, k.toLowerCase()];
        out[k] = byField && fieldMatches(p) ? '[REDACTED]' : walk(x, p, byField);
      }
      return out;
    }
    return v;
  };

  return {
    text,
    value: (v) => walk(v, []),
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
