/**
 * The built-in redaction rules (src/redact/redact.ts applies them), most specific first, each with
 * its trigger: what every match of it holds, which the pre-scan (prescan.ts) joins so that a text
 * none of them could match skips them all.
 */
import { hasLongBase64Run, preScan, type Trigger } from './prescan.js';
import { isSecretKey, SECRET_KEY_CANDIDATE } from './secret-keys.js';
import { regexpLiteral } from '../util/regexp-literal.js';

/** `secrets`: keys, tokens, JWTs, cards; `pii` (the default) adds emails and phone numbers. */
export type RedactionLevel = 'secrets' | 'pii';

export interface Rule {
  re: RegExp;
  replace: (match: string, ...groups: string[]) => string;
  /** Personal data rather than a secret: applied only at level `pii`. */
  pii?: true;
  /** A substring every match holds: without it in the text the rule is skipped (most text has none). */
  when?: string;
  /** The whole text at once, for a rule that must decide match by match where the scan goes on. */
  apply?: (s: string) => string;
}

/**
 * A built-in rule also says what every match of it holds (prescan.ts): a text in which no rule's
 * trigger is found skips them all.
 */
export type BuiltinRule = Rule & { trigger: Trigger };

export const mask = (label: string) => () => `[${label}]`;

/**
 * A rule all of whose matches hold `literal`: it is skipped where the text lacks it (`when`), and the
 * pre-scan looks for it (its trigger, the literal as an expression).
 */
const holding = (literal: string): { when: string; trigger: string } => ({
  when: literal,
  trigger: regexpLiteral(literal),
});

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

const AWS_SECRET = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

/**
 * Only a secret key's value is consumed: after any other key the scan goes on right behind the key,
 * so `url=https://x/?token=…` or `note: a?password=…` still reach the pair inside.
 */
function maskKeyValues(s: string): string {
  // Most text names no secret at all: one cheap scan for the words every secret key holds, and a
  // pair needs its `:` or `=` (prose that mentions a password has neither).
  if (!SECRET_KEY_CANDIDATE.test(s) || (!s.includes(':') && !s.includes('='))) return s;
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
const BUILTIN: BuiltinRule[] = [
  // PEM and PGP private key blocks (RSA, EC, OPENSSH, ENCRYPTED, PGP … BLOCK); one cut short by a clip
  // (no END line) is masked to the end of the text.
  {
    re: /-----BEGIN (?:[A-Z0-9]+ )*(?:PRIVATE KEY(?: BLOCK)?|SECRET KEY)-----[\s\S]*?(?:-----END [A-Z0-9 ]*-----|$)/g,
    replace: mask('SECRET'),
    ...holding('-----BEGIN '),
  },
  // JWTs: three base64url parts, the first two starting with eyJ ('{"').
  {
    re: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
    replace: mask('SECRET'),
    ...holding('eyJ'),
  },
  // Webhook URLs are credentials in themselves (Slack, Discord, Microsoft Teams, Google Chat): the path goes.
  {
    re: /\bhttps?:\/\/(hooks\.slack\.com|discord(?:app)?\.com\/api\/webhooks|[\w-]+\.webhook\.office\.com|outlook\.office\.com\/webhook|chat\.googleapis\.com\/v1\/spaces)\/[^\s"'<>\\]+/gi,
    replace: (m) => `${m.slice(0, m.indexOf('/', m.indexOf('//') + 2))}/[SECRET]`,
    ...holding('://'),
  },
  // Credentials in a URL: scheme://user:password@host (DSNs: postgres://, redis://, amqp://, https://).
  {
    re: /\b([a-z][a-z0-9+.-]{1,20}:\/\/[^\s:@/?#"'<>\\]{0,256}:)([^\s@/?#"'<>\\]{1,1024})@/gi,
    replace: (_m, head) => `${head}[SECRET]@`,
    ...holding('://'),
  },
  // Signed-URL signatures (S3, GCS, Azure SAS); token=, access_token=, api_key= go by the key rule below.
  {
    re: /([?&](?:sig|signature|x-amz-signature|x-goog-signature)=)[^&#\s"'<>\\]+/gi,
    replace: (m) => `${m.slice(0, m.indexOf('=') + 1)}[SECRET]`,
    when: '=',
    trigger: '[?&](?:sig|signature|x-amz-signature|x-goog-signature)=',
  },
  // Authorization headers.
  {
    re: /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
    replace: (m) => `${m.split(/\s+/)[0]} [SECRET]`,
    trigger: 'bearer|basic|token',
  },
  // Provider keys: OpenAI/Anthropic sk-…, GitHub, GitLab, Slack, Google, Stripe, Hugging Face, npm,
  // AWS access key ids.
  { re: /\bsk-[A-Za-z0-9_-]{16,}/g, replace: mask('SECRET'), ...holding('sk-') },
  {
    re: /\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,})/g,
    replace: mask('SECRET'),
    trigger: 'gh[pousr]_|github_pat_|glpat-',
  },
  {
    re: /\b(xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,})/g,
    replace: mask('SECRET'),
    trigger: 'xox[abposre]-|xapp-',
  },
  { re: /\b(AIza[0-9A-Za-z_-]{30,}|ya29\.[0-9A-Za-z_-]{20,})/g, replace: mask('SECRET'), trigger: 'aiza|ya29\\.' },
  { re: /\b[rs]k_(live|test)_[A-Za-z0-9]{10,}/g, replace: mask('SECRET'), trigger: '[rs]k_(?:live|test)_' },
  { re: /\b(hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36})\b/g, replace: mask('SECRET'), trigger: 'hf_|npm_' },
  { re: /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: mask('SECRET'), trigger: 'akia|asia' },
  // AWS secret access keys, with or without their key next to them.
  {
    re: AWS_SECRET,
    replace: maskAwsSecret,
    apply: (t) => (hasLongBase64Run(t) ? t.replace(AWS_SECRET, maskAwsSecret) : t),
    trigger: hasLongBase64Run,
  },
  // key=value / "key": "value" for secret-named keys.
  // Its trigger is also what a secret key in parsed JSON holds (isSecretKey): mayChangeJson relies on it.
  { re: KEY_VALUE, replace: (m) => m, apply: maskKeyValues, trigger: SECRET_KEY_CANDIDATE.source },
  // Emails. (Starting only where a run of local-part characters starts keeps it linear: otherwise a
  // long run without '@' is scanned again from each of its characters.)
  {
    re: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
    replace: mask('EMAIL'),
    pii: true,
    ...holding('@'),
  },
  // Card numbers: 13–19 digits, optional single spaces/dashes between groups, Luhn-valid — also
  // inside a longer run (`4242 4242 4242 4242 12/27`, `4111111111111111 123`): every window is tried.
  { re: /(?<!\d[ -]?)\d(?:[ -]?\d){12,}/g, replace: maskCardWindows, trigger: '\\d(?:[ -]?\\d){12}' },
  // Phone numbers: + and 8–15 digits, or 9–15 digits in separated groups ((555) 123-4567, 555.123.4567).
  // Masked only with 9 digits, at most two of `\s.()+-` between two (`(555) 123` puts `) ` there).
  {
    pii: true,
    trigger: '\\d(?:[\\s.()+-]{0,2}\\d){8}',
    re: /(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{2,5}(?:[\s.-]\d{2,5}){1,4}(?![\w])|(?<![\w+])\+\d{8,15}(?!\w)/g,
    replace: (m) => {
      const digits = m.replace(/\D/g, '').length;
      const separated = /[\s.()-]/.test(m) || m.startsWith('+');
      // Dates (2024-01-15) and versions have too few digits; plain runs without + are left alone.
      return separated && digits >= 9 && digits <= 15 && !/^\d{4}-\d{2}-\d{2}/.test(m) ? '[PHONE]' : m;
    },
  },
];

/** The built-in rules a level applies (`pii`, the default, all of them). */
export const builtinRules = (level: RedactionLevel | undefined): BuiltinRule[] =>
  level === 'secrets' ? BUILTIN.filter((r) => !r.pii) : BUILTIN;

/** Whether some built-in rule of the level could change a text: their triggers joined (prescan.ts). */
export function builtinPreScan(level: RedactionLevel | undefined): (s: string) => boolean {
  return preScan(builtinRules(level).map((r) => r.trigger));
}
